package forget

import "errors"

// ErrInvalid marks a request that cannot be done as asked (an empty or
// multi-line phrase): a usage error.
var ErrInvalid = errors.New("invalid")

// ErrNotFound marks a session that does not exist.
var ErrNotFound = errors.New("not found")
