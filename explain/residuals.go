package explain

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/model/spectral"
)

// Residual is the bivariate residual (BVR) of a pair of discrete observed
// variables a and b: how far their two-way table in the data is from the
// table the model expects, LatentGOLD's local-dependence statistic. Over
// the N rows where both are observed, with O_ij the rows where a = i and
// b = j and E_ij = N·P(a = i, b = j) under the model (exact, from the
// model's pair marginal),
//
//	Chi2 = Σ_ij (O_ij − E_ij)² / E_ij,  DF = (K_a − 1)(K_b − 1),  BVR = Chi2 / DF
//
// (DF at least 1). A model that explains the pair's association through
// its hidden variables leaves BVRs near 1 or below; a large BVR (LatentGOLD
// flags those above 3.84, the 5% point of χ² with one degree of freedom)
// says the pair is more (or less) associated than the model allows, a
// local dependence. The BVR is a descriptive statistic: the model was
// fitted to the same rows, so Chi2 is not χ²-distributed with DF degrees
// of freedom, and the 3.84 rule is a rule of thumb.
type Residual struct {
	A    string  `json:"a"`
	B    string  `json:"b"`
	BVR  float64 `json:"bvr"`
	Chi2 float64 `json:"chi2"`
	DF   int     `json:"df"`
	// Rows is N, the rows where both are observed. With row weights
	// (data.Dataset.RowWeights) the table O and N are weighted, and Rows
	// is N rounded (a frequency-weighted table's expanded rows).
	Rows int `json:"rows"`
	// Impossible counts the rows in cells the model gives probability 0,
	// left out of Chi2 (whose terms there would be infinite).
	Impossible int `json:"impossible,omitempty"`
	// States are the states of a and b; Observed and Expected the tables
	// O and E, row-major len(States[0])×len(States[1]).
	States   [2][]string `json:"states"`
	Observed []float64   `json:"observed"`
	Expected []float64   `json:"expected"`
}

// BivariateResiduals returns the bivariate residual of every pair of
// discrete observed variables of m in the rows of d, largest BVR first
// (ties in the model's order of the pairs). m is a discrete model, or a
// mixed one, whose continuous variables are left out; d may also hold a
// discrete model's covariates, whose root regression's rows average to
// its Prior (the pair marginals' root distribution). A Gaussian model has
// no discrete variables and a spectral one no proper pair marginals, so
// both are errors. The pair marginals take one pass over the tree per
// observed variable, the tables one pass over the rows per pair.
func BivariateResiduals(m model.Model, d *data.Dataset) ([]Residual, error) {
	if m == nil || d == nil {
		return nil, errors.New("explain: bivariate residuals need a model and data")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	t := m.Structure()
	var obs []int
	for _, v := range t.Observed() {
		if m.NodeKind(v) == data.Discrete {
			obs = append(obs, v)
		}
	}
	var labels func(v int) []string
	var pairs func() [][][]float64
	switch x := m.(type) {
	case *discrete.Model:
		labels = x.StateLabels
		pairs = func() [][][]float64 { return x.PairMarginals(obs) }
	case *mixed.Model:
		labels = x.StateLabels
		pairs = func() [][][]float64 { return mixedPairs(x, obs) }
	case *spectral.Model:
		return nil, errors.New("explain: a spectral model's estimate is not a proper distribution; fit a discrete model (EM) for bivariate residuals")
	default:
		if m.Kind() == data.Continuous {
			return nil, errors.New("explain: bivariate residuals need discrete observed variables; a Gaussian model has none")
		}
		return nil, fmt.Errorf("explain: %T models have no bivariate residuals (discrete and mixed models)", m)
	}
	if err := model.CheckModelColumns(m, d.Names()); err != nil {
		return nil, err
	}
	codes := make([][]uint16, len(obs))
	for i, v := range obs {
		name := t.Name(v)
		j, _ := d.Index(name)
		dv := d.Var(j)
		if dv.Kind != data.Discrete {
			return nil, fmt.Errorf("explain: column %q is continuous but the model's variable is discrete", name)
		}
		remap, err := model.StateRemap(dv, labels(v))
		if err != nil {
			return nil, err
		}
		col := d.Discrete(j)
		codes[i] = make([]uint16, len(col))
		for r, c := range col {
			codes[i][r] = data.Missing
			if c != data.Missing {
				codes[i][r] = remap[c]
			}
		}
	}
	if len(obs) < 2 {
		return []Residual{}, nil
	}
	states := make([][]string, len(obs))
	for i, v := range obs {
		states[i] = labels(v)
	}
	joint := pairs()
	w := d.RowWeights()
	out := make([]Residual, 0, len(obs)*(len(obs)-1)/2)
	for i := range obs {
		for j := i + 1; j < len(obs); j++ {
			out = append(out, residual(codes[i], codes[j], w, joint[i][j], len(states[i]), len(states[j])))
			res := &out[len(out)-1]
			res.A, res.B = t.Name(obs[i]), t.Name(obs[j])
			res.States = [2][]string{states[i], states[j]}
		}
	}
	slices.SortStableFunc(out, func(x, y Residual) int {
		switch {
		case x.BVR > y.BVR:
			return -1
		case x.BVR < y.BVR:
			return 1
		}
		return 0
	})
	return out, nil
}

// residual counts the two-way table of codes a and b (model states,
// data.Missing left out; each row counting its weight w, nil: 1) and
// compares it with p, the model's joint distribution of the pair (ka×kb
// row-major).
func residual(a, b []uint16, w []float64, p []float64, ka, kb int) Residual {
	res := Residual{Observed: make([]float64, ka*kb), Expected: make([]float64, ka*kb), DF: max((ka-1)*(kb-1), 1)}
	n := 0.0
	for r, x := range a {
		y := b[r]
		if x == data.Missing || y == data.Missing {
			continue
		}
		wr := 1.0
		if w != nil {
			wr = w[r]
		}
		res.Observed[int(x)*kb+int(y)] += wr
		n += wr
	}
	res.Rows = int(math.Round(n))
	for c, q := range p {
		e := n * max(q, 0)
		res.Expected[c] = e
		o := res.Observed[c]
		if e <= 0 {
			res.Impossible += int(o)
			continue
		}
		res.Chi2 += (o - e) * (o - e) / e
	}
	res.BVR = res.Chi2 / float64(res.DF)
	return res
}

// mixedPairs returns the joint distribution of every pair of the given
// discrete nodes of a mixed model, as discrete.Model.PairMarginals: the
// discrete nodes form a subtree holding the root (a discrete node's parent
// is discrete), so each pair's path runs through discrete nodes only.
func mixedPairs(m *mixed.Model, nodes []int) [][][]float64 {
	c := newCG(m)
	out := make([][][]float64, len(nodes))
	for i, u := range nodes {
		from := c.condFrom(u)
		ku := m.States[u]
		out[i] = make([][]float64, len(nodes))
		for j, v := range nodes {
			kv := m.States[v]
			tab := make([]float64, ku*kv)
			for a := range ku {
				for b := range kv {
					tab[a*kv+b] = c.marg[u][a] * from[v][a*kv+b]
				}
			}
			out[i][j] = tab
		}
	}
	return out
}

// WriteResiduals writes the residuals for people: a header line and a
// table with a row per pair as given (BivariateResiduals: largest BVR
// first), such as
//
//	bivariate residuals of 15 pairs, largest first (BVR = Pearson χ² / df of the pair's table, observed vs expected under the model; > 3.84 flagged *)
//	  a   b     BVR     χ²  df  rows
//	  x5  x6  187.36  187.36  1  3000  *
func WriteResiduals(w io.Writer, res []Residual) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "bivariate residuals of %d pairs, largest first (BVR = Pearson χ² / df of the pair's table, observed vs expected under the model; above %.2f: *)\n", len(res), BVRFlag)
	var tab bytes.Buffer
	tw := tabwriter.NewWriter(&tab, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  a\tb\tBVR\tχ²\tdf\trows\t\n")
	for _, x := range res {
		flag := ""
		if x.BVR > BVRFlag {
			flag = "*"
		}
		if x.Impossible > 0 {
			flag += fmt.Sprintf(" (%d rows the model gives probability 0, left out)", x.Impossible)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%.2f\t%.2f\t%d\t%d\t%s\n", x.A, x.B, x.BVR, x.Chi2, x.DF, x.Rows, flag)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The flag column is empty in most rows: no trailing blanks.
	for line := range strings.Lines(tab.String()) {
		bw.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	return bw.Flush()
}

// BVRFlag is the BVR above which WriteResiduals flags a pair: 3.84, the
// 5% point of χ² with one degree of freedom, LatentGOLD's rule of thumb.
const BVRFlag = 3.84
