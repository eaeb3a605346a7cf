package simulate

import (
	"fmt"

	"github.com/latentree/latentree/tree"
)

// MaxSampleCells is the most values (rows × nodes, hidden nodes included)
// CheckRows allows in one sample: a model's Sample draws every node's
// column in memory, 8 bytes a value for a Gaussian model (2 GiB at this
// limit) and 2 for a discrete one, before the observed columns are copied
// into the dataset. Larger data sets are drawn in parts with different
// sources.
const MaxSampleCells = 1 << 28

// CheckRows reports whether a sample of rows rows from a model on t fits
// in MaxSampleCells, before anything is drawn: a negative number of rows,
// or too many for the tree, is an error saying how many fit.
func CheckRows(t *tree.Tree, rows int) error {
	if rows < 0 {
		return fmt.Errorf("simulate: %d rows: want 0 or more", rows)
	}
	nodes := max(t.NumNodes(), 1)
	if rows > MaxSampleCells/nodes {
		return fmt.Errorf("simulate: %d rows of a %d-node tree are more than the %d values held in memory (MaxSampleCells): at most %d rows; draw more in parts with different seeds",
			rows, nodes, MaxSampleCells, MaxSampleCells/nodes)
	}
	return nil
}
