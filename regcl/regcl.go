package regcl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/stats"
	"github.com/latentree/latentree/structure"
	"github.com/latentree/latentree/tree"
)

// Options configures Learn.
type Options struct {
	// Inner is structure.MethodNJ (regCLNJ, the default) or
	// structure.MethodRG (regCLRG).
	Inner structure.Method
	// HiddenStates of every new hidden variable (default 2).
	HiddenStates int
	// MaxHidden, when positive, grows the tree up to this many hidden
	// variables, never more, even through subtrees that do not improve
	// the BIC (0: stop when no subtree improves the BIC).
	MaxHidden int
	// EM configures the local and final EM runs (Tol default model.DefaultTol).
	EM model.EMOptions
	// Src samples the hidden variables when SampleHidden (nil: a fixed
	// seed).
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
	Tree  *tree.Tree
	Model *model.Discrete
	Steps []Step
	// Evaluated counts the candidate subtrees fitted.
	Evaluated int
	EM        *model.EMResult
}

// Learn runs regCLNJ or regCLRG on discrete data d.
func Learn(d *data.Dataset, opt Options) (*Result, error) {
	if d == nil || d.NumVars() < 3 {
		return nil, errors.New("regcl: need at least 3 variables")
	}
	if !d.AllDiscrete() {
		return nil, errors.New("regcl: regularized CLGrouping needs discrete data")
	}
	if d.HasMissing() {
		return nil, errors.New("regcl: missing cells are not supported by regularized CLGrouping yet")
	}
	inner := opt.Inner
	if inner == "" {
		inner = structure.MethodNJ
	}
	if inner != structure.MethodNJ && inner != structure.MethodRG {
		return nil, fmt.Errorf("regcl: inner method must be nj or rg, not %q", inner)
	}
	k := opt.HiddenStates
	if k == 0 {
		k = 2
	}
	src := opt.Src
	if src == nil {
		src = rand.NewPCG(1, 3)
	}
	rng := rand.New(src)
	emOpt := opt.EM
	if emOpt.Tol == 0 {
		emOpt.Tol = model.DefaultTol
	}
	emOpt.Restarts, emOpt.KeepInit = -1, true
	n := d.NumRows()
	logn := math.Log(float64(n))

	st, err := stats.Compute(d, stats.Options{})
	if err != nil {
		return nil, err
	}
	dm, _, err := distance.Information(st, distance.InfoOptions{})
	if err != nil {
		return nil, err
	}
	t, _, err := structure.Learn(dm, structure.Options{Method: structure.MethodMST})
	if err != nil {
		return nil, err
	}
	// Completed data: a column and variable for every node.
	cols := map[string][]uint16{}
	vars := map[string]data.Variable{}
	for j := 0; j < d.NumVars(); j++ {
		v := d.Var(j)
		cols[v.Name], vars[v.Name] = d.Discrete(j), v
	}
	local := func(names []string) (*data.Dataset, error) {
		vs := make([]data.Variable, len(names))
		cs := make([][]uint16, len(names))
		for x, nm := range names {
			vs[x], cs[x] = vars[nm], cols[nm]
		}
		return data.FromDiscrete(vs, cs)
	}
	type cand struct {
		valid bool
		sub   *tree.Tree
		fit   *model.Discrete
		delta float64
		nbd   []int
	}
	var centers []int
	for _, v := range t.Nodes() {
		if t.Degree(v) >= 2 {
			centers = append(centers, v)
		}
	}
	cands := make(map[int]*cand, len(centers))
	res := &Result{}
	evaluate := func(i int) (*cand, error) {
		nbd := append([]int{i}, t.Neighbors(i)...)
		slices.Sort(nbd[1:])
		names := make([]string, len(nbd))
		for x, v := range nbd {
			names[x] = t.Name(v)
		}
		dsN, err := local(names)
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
		sm, err := model.ForData(star, dsN, k)
		if err != nil {
			return nil, err
		}
		sres, err := sm.FitEM(dsN, model.EMOptions{Restarts: -1, MaxIter: 2, Workers: emOpt.Workers})
		if err != nil {
			return nil, err
		}
		// The latent subtree on N.
		sst, err := stats.Compute(dsN, stats.Options{})
		if err != nil {
			return nil, err
		}
		sdm, _, err := distance.Information(sst, distance.InfoOptions{Rank: min(k, minStates(dsN))})
		if err != nil {
			return nil, err
		}
		sub, _, err := structure.Learn(sdm, structure.Options{Method: inner, Samples: n, RG: structure.RGOptions{Grouping: structure.GroupSilhouette}})
		if err != nil {
			return nil, err
		}
		res.Evaluated++
		if sub.NumHidden() == 0 {
			return c, nil
		}
		fm, err := model.ForData(sub, dsN, k)
		if err != nil {
			return nil, err
		}
		if err := fm.InitSurrogate(dsN, 0); err != nil {
			return nil, err
		}
		fres, err := fm.FitEM(dsN, emOpt)
		if err != nil {
			return nil, err
		}
		c.sub, c.fit = sub, fm
		c.delta = (fres.LogLik - sres.LogLik) - 0.5*float64(fm.NumParams()-sm.NumParams())*logn
		return c, nil
	}
	processed := map[int]bool{}
	hiddenCount := 0
	for {
		if opt.MaxHidden > 0 && hiddenCount >= opt.MaxHidden {
			break
		}
		var best *cand
		bestI := -1
		for _, i := range centers {
			if processed[i] {
				continue
			}
			c := cands[i]
			if c == nil || !c.valid {
				var err error
				if c, err = evaluate(i); err != nil {
					return nil, err
				}
				cands[i] = c
			}
			if c.sub == nil || (opt.MaxHidden > 0 && hiddenCount+c.sub.NumHidden() > opt.MaxHidden) {
				continue
			}
			if best == nil || c.delta > best.delta {
				best, bestI = c, i
			}
		}
		if best == nil || (best.delta <= 0 && opt.MaxHidden == 0) {
			break
		}
		// Incorporate the subtree.
		sub := best.sub
		subToT := make([]int, sub.MaxID())
		for s := range subToT {
			subToT[s] = -1
		}
		for _, s := range sub.Observed() {
			v, ok := t.Lookup(sub.Name(s))
			if !ok {
				return nil, fmt.Errorf("regcl: %w: %q not in the tree", tree.ErrInternal, sub.Name(s))
			}
			subToT[s] = v
		}
		sub.AutoNameHidden(fmt.Sprintf("h%d_", len(res.Steps)+1))
		fitTree := best.fit.Tree
		newIDs, err := t.ReplaceSubtree(best.nbd, sub, subToT)
		if err != nil {
			return nil, err
		}
		// Sample the new hidden variables from their posterior in the
		// local model and add them to the completed data.
		names := make([]string, len(best.nbd))
		for x, v := range best.nbd {
			names[x] = t.Name(v)
		}
		dsN, err := local(names)
		if err != nil {
			return nil, err
		}
		hid := fitTree.Hidden()
		post, err := best.fit.Posterior(dsN, hid, model.InferOptions{Workers: emOpt.Workers})
		if err != nil {
			return nil, err
		}
		added := 0
		for x, h := range hid {
			tid := newIDs[h]
			if tid < 0 || !t.Has(tid) {
				continue
			}
			name := fmt.Sprintf("h%d", hiddenCount+added+1)
			for {
				if _, used := t.Lookup(name); !used {
					break
				}
				name += "'"
			}
			if err := t.SetName(tid, name); err != nil {
				return nil, err
			}
			kh := best.fit.States[h]
			col := make([]uint16, n)
			for r := 0; r < n; r++ {
				p := post[x][r*kh : (r+1)*kh]
				s := 0
				if !opt.SampleHidden {
					for a := range p {
						if p[a] > p[s] {
							s = a
						}
					}
				} else {
					u := rng.Float64()
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
			cols[name], vars[name] = col, data.Variable{Name: name, Kind: data.Discrete, States: labels}
			added++
		}
		hiddenCount += added
		res.Steps = append(res.Steps, Step{Center: t.Name(bestI), Hidden: added, DeltaBIC: best.delta})
		processed[bestI] = true
		// Candidates whose neighbourhood changed must be re-evaluated.
		for _, i := range centers {
			if c := cands[i]; c != nil && c.valid {
				for _, v := range c.nbd {
					if slices.Contains(best.nbd, v) {
						c.valid = false
						break
					}
				}
			}
		}
	}
	// Final model: all hidden variables hidden again, parameters refined
	// by EM on the whole tree.
	m, err := model.ForData(t, d, k)
	if err != nil {
		return nil, err
	}
	if err := m.InitSurrogate(d, 0); err != nil {
		return nil, err
	}
	em, err := m.FitEM(d, emOpt)
	if err != nil {
		return nil, err
	}
	res.Tree, res.Model, res.EM = t, m, em
	return res, nil
}

func minStates(d *data.Dataset) int {
	k := math.MaxInt
	for j := 0; j < d.NumVars(); j++ {
		k = min(k, d.Var(j).NumStates())
	}
	return k
}
