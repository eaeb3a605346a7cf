package explain

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
)

// StdErrors are the standard errors a discrete model file holds (written
// by fit --se or learn --se), one distribution per entry.
type StdErrors struct {
	// Method is "hessian" (the observed information) or "bootstrap".
	Method string `json:"method"`
	// Replicates is the number of bootstrap replicates.
	Replicates    int            `json:"replicates,omitempty"`
	Distributions []Distribution `json:"distributions"`
}

// Distribution is the root's prior (Parent empty) or a node's
// distribution given one state of its parent, with the standard error of
// each probability.
type Distribution struct {
	Node   string `json:"node"`
	Parent string `json:"parent,omitempty"`
	Given  string `json:"given,omitempty"`
	// States, P and SE: each state's label, probability and standard
	// error; Boundary[i] marks a boundary estimate (discrete.IsBoundary:
	// within 1e-6 of 0 or 1), whose standard error is not informative.
	States   []string  `json:"states"`
	P        []float64 `json:"p"`
	SE       []float64 `json:"se"`
	Boundary []bool    `json:"boundary"`
}

// StandardErrors returns the standard errors of m's probabilities when m
// is a discrete model that holds them (discrete.Model.SE), else nil: the
// root's prior first, then every node's distribution given each state of
// its parent, in the rooted tree's order.
func StandardErrors(m model.Model) *StdErrors {
	dm, ok := m.(*discrete.Model)
	if !ok || dm.SE == nil {
		return nil
	}
	t, r := dm.Tree, dm.Rooted()
	out := &StdErrors{Method: dm.SE.Method, Replicates: dm.SE.Replicates}
	add := func(d Distribution, p, se []float64) {
		d.P, d.SE = p, se
		for _, x := range p {
			d.Boundary = append(d.Boundary, discrete.IsBoundary(x))
		}
		out.Distributions = append(out.Distributions, d)
	}
	for _, v := range r.Order {
		states := dm.StateLabels(v)
		k := dm.States[v]
		if v == dm.Root {
			add(Distribution{Node: t.Name(v), States: states}, dm.Prior, dm.SE.Prior)
			continue
		}
		p := r.Parent[v]
		given := dm.StateLabels(p)
		for a := 0; a < dm.States[p]; a++ {
			add(Distribution{Node: t.Name(v), Parent: t.Name(p), Given: given[a], States: states},
				dm.CPT[v][a*k:(a+1)*k], dm.SE.CPT[v][a*k:(a+1)*k])
		}
	}
	return out
}

// WriteStdErrors writes s as text, one distribution per line, each
// probability followed by its standard error in parentheses, such as
//
//	standard errors (observed information: exact Hessian); * boundary estimate (within 1e-6 of 0 or 1)
//	  h1:           0 0.6012 (0.0211)  1 0.3988 (0.0211)
//	  x1 | h1 = 0:  0 0.8570 (0.0162)  1 0.1430 (0.0162)
func WriteStdErrors(w io.Writer, s *StdErrors) error {
	bw := bufio.NewWriter(w)
	how := "observed information: exact Hessian"
	switch s.Method {
	case discrete.SEBootstrap:
		how = fmt.Sprintf("bootstrap, %d replicates", s.Replicates)
	case discrete.SESandwich:
		how = "sandwich for sampling weights: robust, from the observed information and the rows' scores"
	}
	// (discrete.BoundaryTol, 1e-6, as %g would not write it.)
	fmt.Fprintf(bw, "standard errors (%s); * boundary estimate (within 1e-6 of 0 or 1)\n", how)
	heads := make([]string, len(s.Distributions))
	width := 0
	for i, d := range s.Distributions {
		heads[i] = d.Node + ":"
		if d.Parent != "" {
			heads[i] = fmt.Sprintf("%s | %s = %s:", d.Node, d.Parent, d.Given)
		}
		width = max(width, len([]rune(heads[i])))
	}
	for i, d := range s.Distributions {
		var b strings.Builder
		b.WriteString("  " + heads[i] + strings.Repeat(" ", width-len([]rune(heads[i]))))
		for j, st := range d.States {
			fmt.Fprintf(&b, "  %s %.4f (%.4f)", st, d.P[j], d.SE[j])
			if d.Boundary[j] {
				b.WriteString("*")
			}
		}
		bw.WriteString(b.String() + "\n")
	}
	return bw.Flush()
}
