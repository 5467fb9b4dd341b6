package devsync

import "slices"

// Local adds patterns of machine-local files (in Ignored's syntax) that
// other packages own. It is called from init functions, before any sync
// runs; a pattern already listed is not added twice.
func Local(patterns ...string) {
	for _, p := range patterns {
		if !slices.Contains(Ignored, p) {
			Ignored = append(Ignored, p)
		}
	}
}
