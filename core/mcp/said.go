package mcp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os/exec"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's failure is recorded as the whole error chain (Status.Detail,
// state.db, the log), since that is what a bug report needs; a person is
// shown it in their own terms, said from the typed error while it is in
// hand (errors.As, errors.Is), never by reading the chain's text back. A
// failure none of these knows is shown whole.

// errStartTimeout is a server that did not answer its start in time.
var errStartTimeout = errors.New("no answer within the start timeout")

// stderrError is a failure with the tail of the server's stderr.
type stderrError struct {
	err  error
	tail string
}

func (e *stderrError) Error() string { return fmt.Sprintf("%v; its stderr ends: %s", e.err, e.tail) }
func (e *stderrError) Unwrap() error { return e.err }

// saidErrno shortens the system's reasons a program cannot be started.
var saidErrno = map[syscall.Errno]string{
	syscall.ENOENT:  "no such file",
	syscall.EACCES:  "permission denied (is it executable?)",
	syscall.ENOEXEC: "not a program this system can run",
}

// said is a server's failure in the user's terms: "cannot start
// /x/server: no such file", "the server at URL refused the connection".
// target is the configured command or URL; the server's own stderr, when
// the failure carries it, is kept. raw is what is shown for a failure it
// does not know.
func said(err error, target, raw string) string {
	tail := ""
	var se *stderrError
	if errors.As(err, &se) {
		tail = "; its stderr ends: " + se.tail
	}
	where := target
	var ue *url.Error
	if errors.As(err, &ue) {
		where = ue.URL
	}
	var ee *exec.Error
	var pe *fs.PathError
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.As(err, &ee) && errors.Is(ee.Err, exec.ErrNotFound):
		return "cannot start " + ee.Name + ": no such command in PATH" + tail
	case errors.As(err, &pe) && pe.Op == "fork/exec":
		why := pe.Err.Error()
		var errno syscall.Errno
		if errors.As(pe.Err, &errno) && saidErrno[errno] != "" {
			why = saidErrno[errno]
		}
		return "cannot start " + pe.Path + ": " + why + tail
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the server at " + where + " refused the connection" + tail
	case errors.As(err, &dns) && dns.IsNotFound:
		return "cannot find the host of " + where + " (no such host)" + tail
	case errors.Is(err, errStartTimeout):
		return target + " did not answer within the start timeout" + tail
	case errors.As(err, &ne) && ne.Timeout():
		return "the server at " + where + " did not answer in time" + tail
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, sdk.ErrConnectionClosed):
		return "it stopped before it answered" + tail
	}
	return raw
}
