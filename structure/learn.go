package structure

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/latentree/latentree/distance"
	"github.com/latentree/latentree/tree"
)

// Method names a structure learning method.
type Method string

// The methods of Learn.
const (
	MethodMST     Method = "mst"
	MethodNJ      Method = "nj"
	MethodRG      Method = "rg"
	MethodCLBlind Method = "clblind"
	MethodCLRG    Method = "clrg"
	MethodCLNJ    Method = "clnj"
)

// Methods lists the methods Learn accepts.
var Methods = []Method{MethodCLNJ, MethodCLRG, MethodNJ, MethodRG, MethodCLBlind, MethodMST}

// ParseMethod returns the method with the given (case-insensitive) name.
func ParseMethod(s string) (Method, error) {
	for _, m := range Methods {
		if strings.EqualFold(s, string(m)) {
			return m, nil
		}
	}
	names := make([]string, len(Methods))
	for i, m := range Methods {
		names[i] = string(m)
	}
	return "", fmt.Errorf("structure: unknown method %q (want one of %s)", s, strings.Join(names, ", "))
}

// Options configures Learn. The zero value runs CLNJ with the defaults of
// Choi et al. (2011, §7).
type Options struct {
	// Method is the learner (default CLNJ).
	Method Method
	// Samples is the number of samples the distances were estimated from;
	// it sets the default thresholds of RG. Zero means exact distances.
	Samples int
	// Contract is ε′: after learning, an edge between an observed and a
	// hidden node shorter than ε′ is contracted (the observed node takes
	// the hidden node's place), and so is an edge between two hidden
	// nodes. Zero means DefaultContract (−log 0.9); negative disables.
	// CLBlind does not contract.
	Contract float64
	// KeepHiddenEdges disables the contraction of short edges between two
	// hidden nodes (the paper contracts only observed–hidden edges).
	KeepHiddenEdges bool
	// CollapseZ, when positive, also contracts an edge between hidden
	// nodes whose length, re-estimated from quartets of observed variables
	// around it, is within CollapseZ standard errors of 0 (used only
	// when Samples > 0). Every hidden–hidden edge is re-estimated this way
	// and contracted when below Contract.
	CollapseZ float64
	// RG configures recursive grouping in RG and CLRG; its Samples
	// defaults to Samples.
	RG RGOptions
}

// Pair names two variables.
type Pair struct{ A, B string }

// Report says what a learner did.
type Report struct {
	Method     Method `json:"method"`
	Observed   int    `json:"observed"`
	Hidden     int    `json:"hidden"`
	Added      int    `json:"hidden_added"`
	Contracted int    `json:"contracted"`
	Suppressed int    `json:"suppressed"`
	// Infinite lists the pairs whose distance was infinite (independent
	// variables); they were given distance InfCap.
	Infinite []Pair  `json:"infinite_pairs,omitempty"`
	InfCap   float64 `json:"inf_cap,omitempty"`
	// Zero lists pairs of distinct variables at distance 0 (identical or
	// perfectly dependent variables).
	Zero    []Pair        `json:"zero_pairs,omitempty"`
	Tau     float64       `json:"tau,omitempty"`
	Eps     float64       `json:"eps,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// prepare validates d and returns its names and a finite copy of its
// entries, with infinite distances capped.
func prepare(d *distance.Matrix, rep *Report) ([]string, []float64, error) {
	if d == nil || d.Size() == 0 {
		return nil, nil, errors.New("structure: no variables")
	}
	if err := d.Validate(distance.ValidateOptions{AllowInf: true}); err != nil {
		return nil, nil, err
	}
	m := d.Size()
	D := make([]float64, m*m)
	copy(D, d.D)
	maxFinite := 0.0
	for i := 0; i < m; i++ {
		D[i*m+i] = 0
		for j := i + 1; j < m; j++ {
			x := 0.5 * (D[i*m+j] + D[j*m+i])
			D[i*m+j], D[j*m+i] = x, x
			if !math.IsInf(x, 1) && x > maxFinite {
				maxFinite = x
			}
		}
	}
	capV := math.Max(2*maxFinite, maxFinite+5)
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			switch x := D[i*m+j]; {
			case math.IsInf(x, 1):
				rep.Infinite = append(rep.Infinite, Pair{d.Names[i], d.Names[j]})
				D[i*m+j], D[j*m+i] = capV, capV
			case x == 0:
				rep.Zero = append(rep.Zero, Pair{d.Names[i], d.Names[j]})
			}
		}
	}
	if len(rep.Infinite) > 0 {
		rep.InfCap = capV
	}
	return d.Names, D, nil
}

// Learn learns a latent tree from the distance matrix d.
func Learn(d *distance.Matrix, opt Options) (*tree.Tree, *Report, error) {
	start := time.Now()
	method := opt.Method
	if method == "" {
		method = MethodCLNJ
	}
	rep := &Report{Method: method}
	names, D, err := prepare(d, rep)
	if err != nil {
		return nil, nil, err
	}
	m := len(names)
	rgOpt := opt.RG
	if rgOpt.Samples == 0 {
		rgOpt.Samples = opt.Samples
	}
	if method == MethodRG || method == MethodCLRG {
		rep.Tau, rep.Eps = rgOpt.params()
		if math.IsInf(rep.Tau, 1) {
			rep.Tau = 0
		}
	}
	contract := opt.Contract
	switch {
	case contract == 0:
		contract = DefaultContract
	case contract < 0:
		contract = 0
	}
	var t *tree.Tree
	switch method {
	case MethodMST:
		t, err = treeFromParents(names, spanning(m, D, false), D)
		contract = 0
	case MethodNJ:
		t, err = treeFromParents(names, make([]int, 0), nil)
		if err == nil {
			rep.Added, err = nj(t, ids(m), D)
		}
	case MethodRG:
		t, err = treeFromParents(names, nil, nil)
		if err == nil {
			rep.Added, err = rg(t, ids(m), D, rgOpt)
		}
	case MethodCLRG:
		t, rep.Added, err = clgroup(names, D, opt.Samples, false, contract, func(t *tree.Tree, ids []int, d []float64) (int, error) { return rg(t, ids, d, rgOpt) })
	case MethodCLNJ:
		t, rep.Added, err = clgroup(names, D, opt.Samples, true, contract, nj)
	case MethodCLBlind:
		t, err = treeFromParents(names, spanning(m, D, false), D)
		if err == nil {
			if rep.Added, err = blindTransform(t, m); err == nil {
				err = fitLengths(t, D, m)
			}
		}
		contract = 0
	default:
		_, err = ParseMethod(string(method))
	}
	if err != nil {
		return nil, nil, err
	}
	rep.Suppressed = t.SuppressHidden()
	if contract > 0 {
		z := 0.0
		if opt.Samples > 0 {
			z = opt.CollapseZ
		}
		hh := contract
		if opt.KeepHiddenEdges {
			hh = 0
		} else {
			rep.Contracted = collapseHidden(t, D, m, contract, z)
		}
		n, err := contractShort(t, contract, hh)
		if err != nil {
			return nil, nil, err
		}
		rep.Contracted += n
	}
	if err := t.Validate(); err != nil {
		return nil, nil, fmt.Errorf("structure: %w: %s produced an invalid tree: %w", tree.ErrInternal, method, err)
	}
	t, _ = t.Compact() // the identifier map is not needed
	rep.Observed, rep.Hidden = t.NumObserved(), t.NumHidden()
	rep.Elapsed = time.Since(start)
	return t, rep, nil
}

func ids(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// ChowLiu returns the Chow–Liu tree (Chow and Liu 1968): the maximum
// weight spanning tree of the observed variables under the pairwise
// mutual information mi (len(names)² row-major, symmetric). Edge lengths
// are left unknown (NaN).
func ChowLiu(names []string, mi []float64) (*tree.Tree, error) {
	m := len(names)
	if m == 0 {
		return nil, errors.New("structure: no variables")
	}
	if len(mi) != m*m {
		return nil, fmt.Errorf("structure: %d mutual information entries for %d variables", len(mi), m)
	}
	for i, x := range mi {
		if math.IsNaN(x) {
			return nil, fmt.Errorf("structure: mutual information of %s and %s is NaN", names[i/m], names[i%m])
		}
	}
	return treeFromParents(names, spanning(m, mi, true), nil)
}
