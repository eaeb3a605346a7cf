package regcl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/internal/seed"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	_ "github.com/latentree/latentree/model/gaussian" // the family of continuous data
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// Options configures Learn.
type Options struct {
	// Inner is structure.MethodNJ (regCLNJ, the default) or
	// structure.MethodRG (regCLRG).
	Inner structure.Method
	// HiddenStates of every new hidden variable (default 2) on discrete
	// data; it must be 0 on continuous data.
	HiddenStates int
	// MaxHidden, when positive, grows the tree up to this many hidden
	// variables, never more, even through subtrees that do not improve
	// the BIC (0: stop when no subtree improves the BIC).
	MaxHidden int
	// EM configures the local and final EM runs (Tol default model.DefaultTol).
	EM model.EMOptions
	// Src samples the hidden variables when SampleHidden (nil: the fixed
	// seed rand.NewPCG(1, 3)).
	Src rand.Source
	// SampleHidden completes each new hidden variable with a sample from
	// its posterior, as the paper does. By default latentree uses its most
	// likely state: deterministic, and better on held-out data (20
	// Newsgroups, regCLRG with 30 hidden variables: test log-likelihood
	// −117,604 against −117,649 … −117,699 over three sampling seeds).
	SampleHidden bool
}

// Step records one incorporated subtree.
type Step struct {
	Center   string  `json:"center"`
	Hidden   int     `json:"hidden_added"`
	DeltaBIC float64 `json:"delta_bic"`
}

// Result is the outcome of Learn.
type Result struct {
	Tree *tree.Tree
	// Model is a *discrete.Model for discrete data and a *gaussian.Model
	// for continuous data.
	Model model.Model
	Steps []Step
	// Evaluated counts the candidate subtrees fitted.
	Evaluated int
	EM        *model.EMResult
}

// Learn runs regCLNJ or regCLRG on d, all discrete or all continuous.
//
// It starts from the Chow–Liu tree of d and, while some neighbourhood's
// latent subtree improves the BIC (Choi et al. 2011, §6.4), replaces the
// best one by its subtree and completes the data with the new hidden
// variables; then it fits the whole tree by EM. On continuous data the
// models are Gaussian latent trees (HiddenStates does not apply) and a
// hidden variable is completed with its conditional mean (or a draw from
// its conditional distribution with SampleHidden).
//
// Missing cells are kept: the distances are pairwise-complete, and every
// log-likelihood in the BIC comparisons, the star's included, is the
// marginal likelihood of the observed cells, maximised by EM; the
// completed hidden columns have no missing cells.
func Learn(d *data.Dataset, opt Options) (*Result, error) {
	l, err := newLearner(d, opt)
	if err != nil {
		return nil, err
	}
	for opt.MaxHidden <= 0 || l.hiddenCount < opt.MaxHidden {
		best, bestI, err := l.bestCandidate()
		if err != nil {
			return nil, err
		}
		if best == nil || (best.delta <= 0 && opt.MaxHidden == 0) {
			break
		}
		if err := l.incorporate(best, bestI); err != nil {
			return nil, err
		}
	}
	// Final model: all hidden variables hidden again, parameters refined
	// by EM on the whole tree.
	m, em, err := l.fit(l.t, d)
	if err != nil {
		return nil, err
	}
	l.res.Tree, l.res.Model, l.res.EM = l.t, m, em
	return l.res, nil
}

// fit fits a model on t to d by EM: a discrete model with l.k states per
// hidden variable from the surrogate start, or a Gaussian model.
func (l *learner) fit(t *tree.Tree, d *data.Dataset) (model.Model, *model.EMResult, error) {
	if l.cont {
		return model.Fit(t, d, model.FitOptions{EM: model.EMOptions{Tol: l.emOpt.Tol, MaxIter: l.emOpt.MaxIter, Progress: l.emOpt.Progress}})
	}
	m, err := discrete.ForData(t, d, l.k)
	if err != nil {
		return nil, nil, err
	}
	if err := m.InitSurrogate(d, 0); err != nil {
		return nil, nil, err
	}
	em, err := m.FitEM(d, l.emOpt)
	if err != nil {
		return nil, nil, err
	}
	return m, em, nil
}

// fitStar fits the star model on the completed data dsN of a
// neighbourhood. Without missing cells every variable of the star is
// observed and one M-step gives the discrete maximum-likelihood
// parameters; with missing cells, or Gaussian, EM runs to convergence.
func (l *learner) fitStar(star *tree.Tree, dsN *data.Dataset) (model.Model, *model.EMResult, error) {
	if l.cont || dsN.HasMissing() {
		return l.fit(star, dsN)
	}
	sm, err := discrete.ForData(star, dsN, l.k)
	if err != nil {
		return nil, nil, err
	}
	sres, err := sm.FitEM(dsN, model.EMOptions{Restarts: -1, MaxIter: 2, Workers: l.emOpt.Workers})
	if err != nil {
		return nil, nil, err
	}
	return sm, sres, nil
}

// learner is the state of one Learn run: the tree grown so far, the data
// completed with a column for every hidden variable added, and the
// candidate subtrees of the neighbourhoods not yet processed.
type learner struct {
	opt         Options
	k, n        int // hidden states, rows
	logn        float64
	rng         *rand.Rand
	emOpt       model.EMOptions
	inner       structure.Method
	cont        bool // continuous data: Gaussian models
	t           *tree.Tree
	cols        map[string][]uint16  // completed discrete data, by variable name
	fcols       map[string][]float64 // completed continuous data, by variable name
	vars        map[string]data.Variable
	centers     []int // nodes of degree ≥ 2 of the Chow–Liu tree
	cands       map[int]*cand
	processed   map[int]bool
	hiddenCount int
	res         *Result
}

// cand is the latent subtree on the neighbourhood nbd of a center and the
// change in BIC it brings over the star on nbd.
type cand struct {
	valid bool // false once the neighbourhood has changed
	sub   *tree.Tree
	fit   model.Model
	delta float64
	nbd   []int
}

// newLearner checks the input and options and builds the Chow–Liu tree.
func newLearner(d *data.Dataset, opt Options) (*learner, error) {
	if d == nil || d.NumVars() < 3 {
		return nil, errors.New("regcl: need at least 3 variables")
	}
	cont := d.AllContinuous()
	if !cont && !d.AllDiscrete() {
		return nil, errors.New("regcl: regularized CLGrouping needs all-discrete or all-continuous data, not a mix")
	}
	if cont && opt.HiddenStates != 0 {
		return nil, fmt.Errorf("regcl: HiddenStates %d does not apply to continuous data (Gaussian hidden variables have no states)", opt.HiddenStates)
	}
	l := &learner{opt: opt, inner: opt.Inner, k: opt.HiddenStates, n: d.NumRows(), res: &Result{}, cont: cont,
		cols: map[string][]uint16{}, fcols: map[string][]float64{}, vars: map[string]data.Variable{}, processed: map[int]bool{}}
	if l.inner == "" {
		l.inner = structure.MethodNJ
	}
	if l.inner != structure.MethodNJ && l.inner != structure.MethodRG {
		return nil, fmt.Errorf("regcl: inner method must be nj or rg, not %q", l.inner)
	}
	if l.k == 0 {
		l.k = 2
	}
	l.rng = seed.Rand(opt.Src, seed.RegCL)
	l.emOpt = opt.EM
	if l.emOpt.Tol == 0 {
		l.emOpt.Tol = model.DefaultTol
	}
	l.emOpt.Restarts, l.emOpt.KeepInit = -1, true
	l.logn = math.Log(float64(l.n))

	st, err := stats.Compute(d, stats.Options{})
	if err != nil {
		return nil, err
	}
	// Variables with different numbers of states get the rank-k distance
	// (distance.DefaultRank with the hidden variables' k).
	info := distance.InfoOptions{HiddenStates: l.k}
	if cont {
		info = distance.InfoOptions{}
	}
	dm, _, err := distance.Information(st, info)
	if err != nil {
		return nil, err
	}
	if l.t, _, err = structure.Learn(dm, structure.Options{Method: structure.MethodMST}); err != nil {
		return nil, err
	}
	for j := 0; j < d.NumVars(); j++ {
		v := d.Var(j)
		if l.vars[v.Name] = v; cont {
			l.fcols[v.Name] = d.Continuous(j)
		} else {
			l.cols[v.Name] = d.Discrete(j)
		}
	}
	for _, v := range l.t.Nodes() {
		if l.t.Degree(v) >= 2 {
			l.centers = append(l.centers, v)
		}
	}
	l.cands = make(map[int]*cand, len(l.centers))
	return l, nil
}

// local returns the completed data of the named variables.
func (l *learner) local(names []string) (*data.Dataset, error) {
	if l.cont {
		fs := make([][]float64, len(names))
		for x, nm := range names {
			fs[x] = l.fcols[nm]
		}
		return data.FromContinuous(names, fs)
	}
	vs := make([]data.Variable, len(names))
	cs := make([][]uint16, len(names))
	for x, nm := range names {
		vs[x], cs[x] = l.vars[nm], l.cols[nm]
	}
	return data.FromDiscrete(vs, cs)
}

// names returns the names of the nodes nbd of the current tree.
func (l *learner) names(nbd []int) []string {
	names := make([]string, len(nbd))
	for x, v := range nbd {
		names[x] = l.t.Name(v)
	}
	return names
}

// bestCandidate evaluates the candidates that are missing or out of date
// and returns the one with the largest BIC gain that fits within
// MaxHidden, with its center (nil if none).
func (l *learner) bestCandidate() (*cand, int, error) {
	var best *cand
	bestI := -1
	for _, i := range l.centers {
		if l.processed[i] {
			continue
		}
		c := l.cands[i]
		if c == nil || !c.valid {
			var err error
			if c, err = l.evaluate(i); err != nil {
				return nil, -1, err
			}
			l.cands[i] = c
		}
		if c.sub == nil || (l.opt.MaxHidden > 0 && l.hiddenCount+c.sub.NumHidden() > l.opt.MaxHidden) {
			continue
		}
		if best == nil || c.delta > best.delta {
			best, bestI = c, i
		}
	}
	return best, bestI, nil
}

// evaluate learns the latent subtree on the neighbourhood of center i in
// the completed data, fits it by EM and scores it against the star model.
func (l *learner) evaluate(i int) (*cand, error) {
	nbd := append([]int{i}, l.t.Neighbors(i)...)
	slices.Sort(nbd[1:])
	names := l.names(nbd)
	dsN, err := l.local(names)
	if err != nil {
		return nil, err
	}
	c := &cand{valid: true, nbd: nbd, delta: math.Inf(-1)}
	if len(nbd) < 3 {
		return c, nil
	}
	// The star model on N (all observed in the completed data).
	star := tree.New()
	ids := make([]int, len(names))
	for x, nm := range names {
		var err error
		if ids[x], err = star.AddObserved(nm); err != nil {
			return nil, err
		}
	}
	for x := 1; x < len(ids); x++ {
		if err := star.AddEdge(ids[0], ids[x], math.NaN()); err != nil {
			return nil, err
		}
	}
	sm, sres, err := l.fitStar(star, dsN)
	if err != nil {
		return nil, err
	}
	// The latent subtree on N.
	sst, err := stats.Compute(dsN, stats.Options{})
	if err != nil {
		return nil, err
	}
	info := distance.InfoOptions{}
	if !l.cont {
		info.Rank = min(l.k, minStates(dsN))
	}
	sdm, _, err := distance.Information(sst, info)
	if err != nil {
		return nil, err
	}
	sub, _, err := structure.Learn(sdm, structure.Options{Method: l.inner, Samples: l.n, RG: structure.RGOptions{Grouping: structure.GroupSilhouette}})
	if err != nil {
		return nil, err
	}
	l.res.Evaluated++
	if sub.NumHidden() == 0 {
		return c, nil
	}
	fm, fres, err := l.fit(sub, dsN)
	if err != nil {
		return nil, err
	}
	c.sub, c.fit = sub, fm
	c.delta = (fres.LogLik - sres.LogLik) - 0.5*float64(fm.NumParams()-sm.NumParams())*l.logn
	return c, nil
}

// incorporate replaces the neighbourhood of best (centered at bestI) by
// its subtree, completes the data with the new hidden variables and marks
// the candidates whose neighbourhood changed for re-evaluation.
func (l *learner) incorporate(best *cand, bestI int) error {
	sub := best.sub
	subToT := make([]int, sub.MaxID())
	for s := range subToT {
		subToT[s] = -1
	}
	for _, s := range sub.Observed() {
		v, ok := l.t.Lookup(sub.Name(s))
		if !ok {
			return fmt.Errorf("regcl: %w: %q not in the tree", tree.ErrInternal, sub.Name(s))
		}
		subToT[s] = v
	}
	sub.AutoNameHidden(fmt.Sprintf("h%d_", len(l.res.Steps)+1))
	newIDs, err := l.t.ReplaceSubtree(best.nbd, sub, subToT)
	if err != nil {
		return err
	}
	added, err := l.complete(best, newIDs)
	if err != nil {
		return err
	}
	l.hiddenCount += added
	l.res.Steps = append(l.res.Steps, Step{Center: l.t.Name(bestI), Hidden: added, DeltaBIC: best.delta})
	l.processed[bestI] = true
	// Candidates whose neighbourhood changed must be re-evaluated.
	for _, i := range l.centers {
		if c := l.cands[i]; c != nil && c.valid {
			for _, v := range c.nbd {
				if slices.Contains(best.nbd, v) {
					c.valid = false
					break
				}
			}
		}
	}
	return nil
}

// complete names the hidden variables that best's subtree added to the
// tree (newIDs maps the subtree's nodes to the tree's) and adds a column
// for each to the completed data: its most likely state in each row under
// the local model, or a sample from its posterior with SampleHidden. It
// returns the number added.
func (l *learner) complete(best *cand, newIDs []int) (int, error) {
	dsN, err := l.local(l.names(best.nbd))
	if err != nil {
		return 0, err
	}
	hid := best.fit.Structure().Hidden()
	cond, err := best.fit.Conditionals(dsN, hid, model.InferOptions{Workers: l.emOpt.Workers})
	if err != nil {
		return 0, err
	}
	added := 0
	for x, h := range hid {
		tid := newIDs[h]
		if tid < 0 || !l.t.Has(tid) {
			continue
		}
		name := fmt.Sprintf("h%d", l.hiddenCount+added+1)
		for {
			if _, used := l.t.Lookup(name); !used {
				break
			}
			name += "'"
		}
		if err := l.t.SetName(tid, name); err != nil {
			return 0, err
		}
		if l.cont {
			l.fcols[name], l.vars[name] = l.completeGaussian(&cond[x]), data.Variable{Name: name, Kind: data.Continuous}
		} else {
			col, labels := l.completeDiscrete(&cond[x])
			l.cols[name], l.vars[name] = col, data.Variable{Name: name, Kind: data.Discrete, States: labels}
		}
		added++
	}
	return added, nil
}

// completeDiscrete returns a hidden variable's column in the completed
// data, its most likely state in each row (or a draw with SampleHidden),
// and its state labels.
func (l *learner) completeDiscrete(c *model.Conditional) ([]uint16, []string) {
	kh := len(c.Labels)
	col := make([]uint16, l.n)
	for r := 0; r < l.n; r++ {
		p := c.Row(r)
		s := 0
		if !l.opt.SampleHidden {
			s, _ = c.Mode(r)
		} else {
			u := l.rng.Float64()
			for acc := p[0]; u >= acc && s < kh-1; {
				s++
				acc += p[s]
			}
		}
		col[r] = uint16(s)
	}
	labels := make([]string, kh)
	for s := range labels {
		labels[s] = fmt.Sprint(s)
	}
	return col, labels
}

// completeGaussian returns a hidden variable's column in the completed
// data: its conditional mean in each row, or a draw from its conditional
// distribution with SampleHidden.
func (l *learner) completeGaussian(c *model.Conditional) []float64 {
	col := make([]float64, l.n)
	for r := range col {
		col[r] = c.Mean[r]
		if l.opt.SampleHidden {
			col[r] += c.SD[r] * l.rng.NormFloat64()
		}
	}
	return col
}

func minStates(d *data.Dataset) int {
	k := math.MaxInt
	for j := 0; j < d.NumVars(); j++ {
		k = min(k, d.Var(j).NumStates())
	}
	return k
}
