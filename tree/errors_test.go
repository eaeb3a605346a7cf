package tree

import (
	"errors"
	"testing"
)

// TestInternalError: a broken invariant is reported as an error that
// wraps both ErrInternal and its cause, and says where it happened.
func TestInternalError(t *testing.T) {
	cause := errors.New("edge missing")
	err := internalError("reading Newick", cause)
	if !errors.Is(err, ErrInternal) || !errors.Is(err, cause) {
		t.Errorf("%v does not wrap ErrInternal and its cause", err)
	}
	want := "tree: reading Newick: latentree: internal error (a bug; please report it): edge missing"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}
