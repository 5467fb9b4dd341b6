package forget

import "agent/memory/errkind"

// ErrInvalid marks a request that cannot be done as asked (an empty or
// multi-line phrase): a usage error.
var ErrInvalid = errkind.Invalid()

// ErrNotFound marks a session that does not exist.
var ErrNotFound = errkind.NotFound()
