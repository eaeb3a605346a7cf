package explain

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
)

// Covariates are the coefficients of a discrete model's root regression
// (discrete.Model.Regression): the multinomial logit of the root's state
// on covariates, each state against the first.
type Covariates struct {
	// Node is the root; Reference its state whose coefficients are 0.
	Node      string `json:"node"`
	Reference string `json:"reference"`
	// Columns are the covariates; Coefficients one entry per state other
	// than the reference and term of the design.
	Columns      []string      `json:"columns"`
	Coefficients []Coefficient `json:"coefficients"`
}

// Coefficient is one coefficient β of the root regression: the change in
// the log-odds of State against the reference per unit of Term (a
// continuous covariate, on its own scale, or the dummy of a categorical
// covariate's state against its first); OddsRatio is exp(β). With
// standard errors (HasSE), Z = β/SE and the 95% interval of the odds
// ratio exp(β ± 1.96 SE) (Wald).
type Coefficient struct {
	State     string  `json:"state"`
	Term      string  `json:"term"`
	Beta      float64 `json:"beta"`
	OddsRatio float64 `json:"odds_ratio"`
	HasSE     bool    `json:"-"`
	SE        float64 `json:"se,omitempty"`
	Z         float64 `json:"z,omitempty"`
	Lower     float64 `json:"or_lower,omitempty"`
	Upper     float64 `json:"or_upper,omitempty"`
}

// OddsRatioText is the odds ratio as explain and report show it, to three
// significant digits: "0.525 (0.394, 0.7)" with its 95% interval, or
// "0.525" without standard errors.
func (c Coefficient) OddsRatioText() string {
	if !c.HasSE {
		return fmt.Sprintf("%.3g", c.OddsRatio)
	}
	return fmt.Sprintf("%.3g (%.3g, %.3g)", c.OddsRatio, c.Lower, c.Upper)
}

// Description is the regression's one-line description that explain and
// report print above the coefficients.
func (c *Covariates) Description() string {
	return fmt.Sprintf("covariates of %s (multinomial logit, each state against state %s; continuous covariates on their own scale, categorical ones against their first state)", c.Node, c.Reference)
}

// CovariateEffects returns the root regression of m when m is a discrete
// model with one, else nil.
func CovariateEffects(m model.Model) *Covariates {
	dm, ok := m.(*discrete.Model)
	if !ok || dm.Regression == nil {
		return nil
	}
	reg := dm.Regression
	states := dm.StateLabels(dm.Root)
	terms := reg.Terms()
	p := len(terms)
	out := &Covariates{Node: dm.Tree.Name(dm.Root), Reference: states[0], Columns: reg.Names()}
	var se []float64
	if dm.SE != nil {
		se = dm.SE.Beta
	}
	for s := 1; s < len(states); s++ {
		for j, term := range terms {
			b := reg.Beta[s*p+j]
			c := Coefficient{State: states[s], Term: term, Beta: b, OddsRatio: math.Exp(b)}
			if se != nil {
				c.HasSE, c.SE = true, se[s*p+j]
				if c.SE > 0 {
					c.Z = b / c.SE
				}
				c.Lower, c.Upper = math.Exp(b-1.96*c.SE), math.Exp(b+1.96*c.SE)
			}
			out.Coefficients = append(out.Coefficients, c)
		}
	}
	return out
}

// WriteCovariates writes c as text, one coefficient per line, such as
//
//	covariates of h1 (multinomial logit, each state against state 0; continuous covariates on their own scale, categorical ones against their first state):
//	  state  term              beta        SE        z  odds ratio (95% CI)
//	  1      (intercept)     2.1158    0.3470     6.10  8.3 (4.2, 16.4)
//	  1      age            -0.0547    0.0082    -6.64  0.947 (0.932, 0.962)
//	  1      sex=m          -0.6440    0.1465    -4.40  0.525 (0.394, 0.7)
func WriteCovariates(w io.Writer, c *Covariates) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s:\n", c.Description())
	sw, tw := len("state"), len("term")
	for _, x := range c.Coefficients {
		sw, tw = max(sw, len([]rune(x.State))), max(tw, len([]rune(x.Term)))
	}
	hasSE := len(c.Coefficients) > 0 && c.Coefficients[0].HasSE
	if hasSE {
		fmt.Fprintf(bw, "  %-*s  %-*s  %9s  %8s  %7s  %s\n", sw, "state", tw, "term", "beta", "SE", "z", "odds ratio (95% CI)")
	} else {
		fmt.Fprintf(bw, "  %-*s  %-*s  %9s  %s\n", sw, "state", tw, "term", "beta", "odds ratio (no standard errors: fit with --se)")
	}
	for _, x := range c.Coefficients {
		if hasSE {
			fmt.Fprintf(bw, "  %-*s  %-*s  %9.4f  %8.4f  %7.2f  %s\n", sw, x.State, tw, x.Term, x.Beta, x.SE, x.Z, x.OddsRatioText())
		} else {
			fmt.Fprintf(bw, "  %-*s  %-*s  %9.4f  %s\n", sw, x.State, tw, x.Term, x.Beta, x.OddsRatioText())
		}
	}
	return bw.Flush()
}
