package mixed

import (
	"log/slog"
	"math/rand/v2"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/tree"
)

// Options configures Fit. The zero value fits two states per discrete
// hidden node, hidden kinds by Layout, by EM to model.DefaultTol.
type Options struct {
	// HiddenStates is the number of states of every discrete hidden node
	// (0: 2); States, when not nil, gives it per node identifier (entries
	// of continuous or observed nodes are ignored).
	HiddenStates int
	States       []int
	// AllDiscreteHidden makes every hidden node discrete (see Layout).
	AllDiscreteHidden bool
	// MaxIter bounds EM iterations (0: model.DefaultMaxIter); Tol is the
	// stopping tolerance on the relative gain in log-likelihood (0:
	// model.DefaultTol).
	MaxIter int
	Tol     float64
	// Restarts is the number of extra random starts (0: none; the
	// moment-based start alone), each run RestartIter iterations (0: 20)
	// before the best continues.
	Restarts    int
	RestartIter int
	// Src is the source of randomness of the random starts (nil: the
	// default seed).
	Src rand.Source
	// Workers is the number of goroutines (0: GOMAXPROCS); results do not
	// depend on it.
	Workers int
	// Logger, when not nil, receives progress.
	Logger *slog.Logger
}

// Fit fits a mixed model with structure t to d by EM: kinds of hidden
// nodes and the root by Layout, a moment-based start, then EM with missing
// cells marginalised. The EMResult's LogLik is the returned model's
// log-likelihood of d.
func Fit(t *tree.Tree, d *data.Dataset, opt Options) (*Model, *model.EMResult, error) {
	return nil, nil, errTODO
}
