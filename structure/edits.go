package structure

import (
	"fmt"

	"github.com/latentree/latentree/tree"
)

// edits records the first failed tree edit of a learner. The learners make
// only edits that are valid by construction, so a failure is a broken
// invariant: it is returned wrapped in tree.ErrInternal.
type edits struct{ err error }

func (e *edits) check(err error) {
	if err != nil && e.err == nil {
		e.err = fmt.Errorf("structure: %w: %w", tree.ErrInternal, err)
	}
}
