package tree

import (
	"errors"
	"fmt"
)

// ErrInternal is wrapped by every error that reports a broken internal
// invariant of latentree — a bug, not a problem with the input or the
// options (for example, an edge the code has just checked is missing). The
// packages of latentree return such errors instead of panicking; the rest
// of the message says what broke. Test for it with errors.Is.
var ErrInternal = errors.New("latentree: internal error (a bug; please report it)")

// internalError reports a broken invariant found while doing what.
func internalError(what string, err error) error {
	return fmt.Errorf("tree: %s: %w: %w", what, ErrInternal, err)
}
