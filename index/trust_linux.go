//go:build linux

package index

import "golang.org/x/sys/unix"

// remoteFS names the filesystems (by statfs f_type) whose files may change
// without an inotify event on this machine: network and cluster
// filesystems, FUSE (sshfs, rclone, …) and 9p (WSL's and VMs' shared
// folders).
var remoteFS = map[int64]string{
	unix.NFS_SUPER_MAGIC:   "NFS",
	unix.SMB_SUPER_MAGIC:   "SMB",
	unix.SMB2_SUPER_MAGIC:  "SMB",
	unix.CIFS_SUPER_MAGIC:  "CIFS",
	unix.FUSE_SUPER_MAGIC:  "FUSE",
	unix.V9FS_MAGIC:        "9p",
	unix.CEPH_SUPER_MAGIC:  "Ceph",
	unix.AFS_FS_MAGIC:      "AFS",
	unix.AFS_SUPER_MAGIC:   "AFS",
	unix.CODA_SUPER_MAGIC:  "Coda",
	unix.OCFS2_SUPER_MAGIC: "OCFS2",
	0x01161970:             "GFS2",
	0x0bd00bd0:             "Lustre",
	0x47504653:             "GPFS",
	0x786f4256:             "VirtualBox shared folder",
}

// remoteDir says why the directory open as fd (rel in the workspace) is
// unfit for vouching, "" when it is a local filesystem.
func remoteDir(fd int, rel string) string {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return rel + ": cannot tell its filesystem (" + err.Error() + ")"
	}
	return remoteFSWhy(int64(st.Type), rel)
}

// remotePath is remoteDir for a path.
func remotePath(path, rel string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return rel + ": cannot tell its filesystem (" + err.Error() + ")"
	}
	return remoteFSWhy(int64(st.Type), rel)
}

func remoteFSWhy(fsType int64, rel string) string {
	if name, ok := remoteFS[fsType]; ok {
		return rel + " is on " + name + ": changes made elsewhere raise no event here"
	}
	return ""
}
