package model

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// StateRemap maps the codes of a discrete column to the states of the
// model's variable with the given labels, matched by label.
func StateRemap(dv data.Variable, labels []string) ([]uint16, error) {
	remap := make([]uint16, len(dv.States))
	for c, l := range dv.States {
		k := -1
		for s, ml := range labels {
			if ml == l {
				k = s
				break
			}
		}
		if k < 0 {
			return nil, fmt.Errorf("model: column %q has state %q, which the model's variable does not have (states %v)", dv.Name, l, labels)
		}
		remap[c] = uint16(k)
	}
	return remap, nil
}

// InferOptions configures inference.
type InferOptions struct {
	// Workers is the number of goroutines (0: GOMAXPROCS).
	Workers int
}

// Workers is the number of goroutines for InferOptions.Workers (and the
// Workers of the families' options) set to n: n, or GOMAXPROCS for n ≤ 0.
func Workers(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// ErrNoSource reports a nil source of randomness given to Sample.
var ErrNoSource = errors.New("model: no source of randomness (nil rand.Source)")

// DefaultRoot returns the node at which latentree roots a model: a hidden
// node of largest degree, or, in a tree without hidden nodes, an observed
// node of largest degree (−1 for an empty tree).
func DefaultRoot(t *tree.Tree) int {
	root, best := -1, -1
	for _, v := range t.Nodes() {
		deg := t.Degree(v)
		if t.IsHidden(v) {
			deg += 1 << 20
		}
		if deg > best {
			root, best = v, deg
		}
	}
	return root
}
