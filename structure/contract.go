package structure

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/latentree/latentree/internal/parallel"
	"github.com/latentree/latentree/tree"
)

// ScoreFunc scores a tree for ContractByScore: it fits a model with
// structure t and returns the model's score, where HIGHER IS BETTER (for
// example −BIC = 2 log L − κ log n), and the fitted state (the model),
// which ContractByScore hands back as warm when it scores a tree derived
// from this one.
//
// warm is the state of the tree t was derived from by contracting one edge
// (nil for the first tree). Contraction keeps node identifiers, so a
// warm state indexed by node carries over. quick asks for a cheap score of
// a candidate: a lower bound of the full score is enough (a few EM
// iterations from the warm start), since a candidate is accepted only when
// even its quick score beats the current tree. With quick false the
// function should fit t fully; ContractByScore keeps whichever of the
// quick and the full fit scores higher.
//
// The function may set the edge lengths of t (for example to the
// information distances of the fitted model, which orders later candidates
// and, being summed by tree.Contract, warm-starts them) but must not change
// its topology. It is called from several goroutines at once when
// ContractOptions.Workers > 1, and must give the same answer for the same
// arguments whichever goroutine calls it.
type ScoreFunc[S any] func(t *tree.Tree, warm *S, quick bool) (score float64, state *S, err error)

// ContractOptions configures ContractByScore. The zero value tries every
// edge at a hidden node, shortest first, in batches of
// DefaultContractBatch, in up to DefaultContractPasses passes, on
// GOMAXPROCS goroutines.
type ContractOptions struct {
	// Passes bounds the passes over the candidate edges (0:
	// DefaultContractPasses). A pass tries every candidate edge once;
	// another pass follows when the previous one contracted an edge.
	Passes int
	// MaxEvals bounds the number of candidate scorings (0: no bound).
	MaxEvals int
	// Batch is the number of candidates compared before the best one
	// that improves the score is kept (0: DefaultContractBatch; 1 keeps
	// the first improving candidate, shortest first).
	Batch int
	// Workers is the number of goroutines scoring candidates (0:
	// GOMAXPROCS). The result does not depend on it: with more workers
	// than Batch, the batches after the current one are scored ahead, and
	// dropped when the current one keeps a contraction.
	Workers int
	// HiddenOnly restricts the candidates to edges between two hidden
	// nodes (by default edges between an observed and a hidden node are
	// candidates too: the hidden node merges into the observed one).
	HiddenOnly bool
	// Progress, if not nil, is called after every batch of candidates
	// with the numbers of candidates scored and contractions kept so far.
	Progress func(evaluated, contracted int)
}

// DefaultContractPasses is the default number of passes of ContractByScore.
const DefaultContractPasses = 2

// DefaultContractBatch is the default ContractOptions.Batch.
const DefaultContractBatch = 1

// ContractResult is what ContractByScore returns.
type ContractResult[S any] struct {
	// Tree is the contracted tree (a copy; node identifiers are those of
	// the input, with the contracted hidden nodes removed).
	Tree *tree.Tree
	// Score and State are those of Tree; Initial and InitialState those
	// of the input tree.
	Score, Initial      float64
	State, InitialState *S
	// Contracted counts the contractions kept; Evaluated the candidate
	// scorings; Passes the passes run.
	Contracted, Evaluated, Passes int
}

// candidate is an edge to contract: drop (hidden) merges into keep.
type candidate struct {
	keep, drop int
	length     float64
}

// ContractByScore contracts edges of t at hidden nodes while doing so
// improves the score: a greedy search that, in each pass, takes the
// candidate edges (observed–hidden, where the hidden node merges into the
// observed one, and hidden–hidden) of the current tree shortest first,
// scores the tree with the edge contracted, Batch candidates at a time,
// and keeps the contraction of the best candidate of a batch whose quick
// score beats the current tree's score; the kept tree is then fitted fully.
// The other candidates of that batch are tried again on the new tree.
// It stops when a pass keeps nothing, after Passes passes, or after
// MaxEvals scorings.
//
// Since a contraction is kept only when it raises the score, the returned
// score is at least the input's: with an exact score (or one whose quick
// value is a lower bound of the full one, as EM from a warm start is for
// the log-likelihood), contraction cannot make the model worse. Removing
// redundant hidden nodes (degree ≤ 2) is the caller's business; contraction
// never creates them.
func ContractByScore[S any](t *tree.Tree, score ScoreFunc[S], opt ContractOptions) (*ContractResult[S], error) {
	if t == nil {
		return nil, errors.New("structure: no tree to contract")
	}
	if score == nil {
		return nil, errors.New("structure: no score function")
	}
	if opt.Passes < 0 || opt.MaxEvals < 0 || opt.Workers < 0 || opt.Batch < 0 {
		return nil, fmt.Errorf("structure: negative contraction option (passes %d, max evaluations %d, batch %d, workers %d)", opt.Passes, opt.MaxEvals, opt.Batch, opt.Workers)
	}
	batch := opt.Batch
	if batch == 0 {
		batch = DefaultContractBatch
	}
	passes := opt.Passes
	if passes == 0 {
		passes = DefaultContractPasses
	}
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	base := t.Clone()
	bs, bst, err := score(base, nil, false)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(bs) {
		return nil, errors.New("structure: the score of the input tree is NaN")
	}
	res := &ContractResult[S]{Initial: bs, InitialState: bst}
	type outcome struct {
		t     *tree.Tree
		score float64
		state *S
		err   error
	}
	for res.Passes < passes {
		res.Passes++
		kept := 0
		tried := map[[2]int]bool{}
		for {
			cands := candidates(base, opt.HiddenOnly, tried)
			n := len(cands)
			if opt.MaxEvals > 0 {
				n = min(n, opt.MaxEvals-res.Evaluated)
			}
			if n <= 0 {
				break
			}
			// Score the next batches at once, as many as keep the workers
			// busy; a batch after one that keeps a contraction is scored
			// in vain and forgotten, so the result is that of scoring one
			// batch at a time.
			window := cands[:min(n, batch*((workers+batch-1)/batch))]
			out := make([]outcome, len(window))
			parallel.For(min(workers, len(window)), len(window), func(_, i int) {
				c := window[i]
				ct := base.Clone()
				if err := ct.Contract(c.keep, c.drop); err != nil {
					out[i].err = err
					return
				}
				s, st, err := score(ct, bst, true)
				out[i] = outcome{ct, s, st, err}
			})
			best, lo, end := -1, 0, 0
			for ; best < 0 && end < len(window); lo = end {
				end = min(lo+batch, len(window))
				for i := lo; i < end; i++ {
					o := out[i]
					if o.err != nil {
						return nil, o.err
					}
					tried[pairKey(window[i].keep, window[i].drop)] = true
					if o.score > bs && (best < 0 || o.score > out[best].score) {
						best = i
					}
				}
				res.Evaluated += end - lo
				if opt.Progress != nil {
					opt.Progress(res.Evaluated, res.Contracted)
				}
			}
			if best < 0 {
				if opt.MaxEvals > 0 && res.Evaluated >= opt.MaxEvals {
					break
				}
				continue
			}
			o := out[best]
			base, bs, bst = o.t, o.score, o.state
			full := base.Clone()
			fs, fst, err := score(full, bst, false)
			if err != nil {
				return nil, err
			}
			if fs > bs {
				base, bs, bst = full, fs, fst
			}
			res.Contracted++
			kept++
			// The other candidates of the kept one's batch are tried
			// again against the new tree.
			for i := best - best%batch; i < end; i++ {
				if i != best {
					delete(tried, pairKey(window[i].keep, window[i].drop))
				}
			}
			if opt.MaxEvals > 0 && res.Evaluated >= opt.MaxEvals {
				break
			}
		}
		if kept == 0 || (opt.MaxEvals > 0 && res.Evaluated >= opt.MaxEvals) {
			break
		}
	}
	res.Tree, res.Score, res.State = base, bs, bst
	return res, nil
}

func pairKey(u, v int) [2]int {
	if u > v {
		u, v = v, u
	}
	return [2]int{u, v}
}

// candidates returns the edges of t at a hidden node not yet tried,
// shortest first (unknown lengths last; ties by node identifiers).
func candidates(t *tree.Tree, hiddenOnly bool, tried map[[2]int]bool) []candidate {
	var out []candidate
	for _, e := range t.Edges() {
		hu, hv := t.IsHidden(e.U), t.IsHidden(e.V)
		if !hu && !hv || hiddenOnly && !(hu && hv) || tried[pairKey(e.U, e.V)] {
			continue
		}
		c := candidate{keep: e.U, drop: e.V, length: e.Length}
		if !hv {
			c.keep, c.drop = e.V, e.U
		}
		if math.IsNaN(c.length) {
			c.length = math.Inf(1)
		}
		out = append(out, c)
	}
	// Lengths are never NaN here, so cmp.Compare is the numeric order.
	slices.SortStableFunc(out, func(a, b candidate) int { return cmp.Compare(a.length, b.length) })
	return out
}
