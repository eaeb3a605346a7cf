package stats

import (
	"fmt"
	"unsafe"

	"github.com/latentree/latentree/data"
)

// DefaultMaxPairBytes is the value Options.MaxPairBytes takes when it is
// zero: 4 GiB.
const DefaultMaxPairBytes int64 = 4 << 30

// maxTableCells bounds the total number of cells of the discrete pair
// tables read from a file or merged (16 GiB of counts), so that an
// impossible request fails with an error instead of exhausting memory.
const maxTableCells = 1 << 31

// pairBytes returns the bytes of the pair statistics of variables laid out
// as lay: a count per cell of the discrete pair tables, a count per
// discrete–continuous pair and moments per state of its discrete variable,
// and the moments of each continuous pair.
func pairBytes(lay layout) int64 {
	nd, nc := int64(len(lay.dvars)), int64(len(lay.cvars))
	moments := int64(unsafe.Sizeof(contPair{}))
	return 8*lay.tableCells() + 8*nd*nc + moments*lay.mixCells() + moments*(nc*(nc-1)/2)
}

// checkPairs returns an error if the pair statistics of vars would take
// more than opt.MaxPairBytes, before anything is allocated. The error
// names the limit, the variables with the most states, and what a caller
// can do.
func (opt Options) checkPairs(vars []data.Variable) error {
	if opt.NoPairs {
		return nil
	}
	limit := opt.MaxPairBytes
	if limit == 0 {
		limit = DefaultMaxPairBytes
	}
	lay := newLayout(vars)
	need := pairBytes(lay)
	if need <= limit {
		return nil
	}
	most := -1
	for j, v := range vars {
		if v.Kind == data.Discrete && (most < 0 || len(v.States) > len(vars[most].States)) {
			most = j
		}
	}
	what := fmt.Sprintf("%d variables (%d discrete, %d continuous)", len(vars), len(lay.dvars), len(lay.cvars))
	if most >= 0 && len(vars[most].States) > 100 {
		what += fmt.Sprintf(", the most states being the %d of %s", len(vars[most].States), data.QuoteCell(vars[most].Name))
	}
	return fmt.Errorf("stats: the pair statistics of %s would take %s, more than the limit of %s: read fewer columns (--columns, --ignore; data.ReadOptions.Columns, Ignore), skip the columns with many states, or raise the limit if the machine has the memory (--max-pair-memory; stats.Options.MaxPairBytes)",
		what, FormatBytes(need), FormatBytes(limit))
}

// FormatBytes formats a number of bytes for a message: "512 B", "1.5 KiB",
// "16.0 GiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
