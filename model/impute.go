package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/tree"
)

// ImputeOptions configures Impute.
type ImputeOptions struct {
	InferOptions
}

// Imputation is a completed dataset with the distribution of every cell
// that was filled in.
type Imputation struct {
	// Data is a copy of the input with every missing cell filled: a
	// discrete cell with its most likely state (the first of ties), a
	// continuous cell with its conditional mean. Discrete columns use the
	// model's state labels, so that a state absent from the input can be
	// imputed.
	Data *data.Dataset `json:"-"`
	// Cells are the filled cells, by column and then by row.
	Cells []ImputedCell `json:"cells"`
}

// ImputedCell is one filled cell and its distribution given the observed
// cells of its row.
type ImputedCell struct {
	// Row is the row (0-based) and Column the column index in the
	// dataset; Name is the column's name.
	Row    int
	Column int
	Name   string
	// Discrete cells: Value is the most likely state, Prob its
	// probability, and States and Probs the whole posterior distribution
	// over the model's states.
	Value  string
	Prob   float64
	States []string
	Probs  []float64
	// Continuous cells: the conditional mean (the imputed value) and
	// standard deviation.
	Mean float64
	SD   float64
}

// MarshalJSON writes a discrete cell as {"row","column","value","prob",
// "probs":{state: probability}} and a continuous one as {"row","column",
// "mean","sd"}; rows are 0-based.
func (c ImputedCell) MarshalJSON() ([]byte, error) {
	if c.States == nil {
		return json.Marshal(struct {
			Row  int     `json:"row"`
			Name string  `json:"column"`
			Mean float64 `json:"mean"`
			SD   float64 `json:"sd"`
		}{c.Row, c.Name, c.Mean, c.SD})
	}
	probs := make([]stateProb, len(c.States))
	for s, l := range c.States {
		probs[s] = stateProb{l, c.Probs[s]}
	}
	return json.Marshal(struct {
		Row   int         `json:"row"`
		Name  string      `json:"column"`
		Value string      `json:"value"`
		Prob  float64     `json:"prob"`
		Probs []stateProb `json:"probs"`
	}{c.Row, c.Name, c.Value, c.Prob, probs})
}

type stateProb struct {
	State string  `json:"state"`
	Prob  float64 `json:"prob"`
}

// MissingColumns returns the nodes of the columns of d that have missing
// cells, with their column indices.
func MissingColumns(names func(string) (int, bool), d *data.Dataset) (cols, nodes []int, err error) {
	for j := 0; j < d.NumVars(); j++ {
		if d.MissingCount(j) == 0 {
			continue
		}
		v, ok := names(d.Var(j).Name)
		if !ok {
			return nil, nil, fmt.Errorf("model: column %q of the data is not a variable of the model", d.Var(j).Name)
		}
		cols, nodes = append(cols, j), append(nodes, v)
	}
	return cols, nodes, nil
}

// ImputeDiscrete is the Impute of a model of discrete variables on tree t
// (a discrete or a spectral one), given its state labels and its
// Conditionals.
func ImputeDiscrete(t *tree.Tree, stateLabels func(int) []string, conditionals func(*data.Dataset, []int, InferOptions) ([]Conditional, error), d *data.Dataset, opt ImputeOptions) (*Imputation, error) {
	if d == nil {
		return nil, errors.New("model: no data")
	}
	if err := matchColumns(t, d); err != nil {
		return nil, err
	}
	cols, nodes, err := MissingColumns(t.Lookup, d)
	if err != nil {
		return nil, err
	}
	post, err := conditionals(d, nodes, opt.InferOptions)
	if err != nil {
		return nil, err
	}
	vars := make([]data.Variable, d.NumVars())
	out := make([][]uint16, d.NumVars())
	for j := range vars {
		v, _ := t.Lookup(d.Var(j).Name)
		labels := stateLabels(v)
		dv := d.Var(j)
		vars[j] = data.Variable{Name: dv.Name, Kind: data.Discrete, States: labels}
		code, err := StateRemap(dv, labels)
		if err != nil {
			return nil, err
		}
		col := make([]uint16, d.NumRows())
		for r, c := range d.Discrete(j) {
			col[r] = data.Missing
			if c != data.Missing {
				col[r] = code[c]
			}
		}
		out[j] = col
	}
	imp := &Imputation{}
	for x, j := range cols {
		if err := imp.FillDiscrete(out[j], d.Discrete(j), j, &post[x]); err != nil {
			return nil, err
		}
	}
	imp.Data, err = data.FromDiscrete(vars, out)
	if err != nil {
		return nil, err
	}
	return imp, nil
}

// FillDiscrete imputes the missing cells of discrete column j: src holds
// the column's codes (data.Missing where missing), dst the codes written
// (the model's), and c the column's Conditional. Every missing cell gets
// its most likely state, and a cell of imp.Cells records its
// distribution; a row of probability 0 under the model is an error.
func (imp *Imputation) FillDiscrete(dst, src []uint16, j int, c *Conditional) error {
	for r, code := range src {
		if code != data.Missing {
			continue
		}
		s, p := c.Mode(r)
		if math.IsNaN(p) {
			return fmt.Errorf("model: row %d has probability 0 under the model; its cell %q cannot be imputed", r+1, c.Name)
		}
		dst[r] = uint16(s)
		imp.Cells = append(imp.Cells, ImputedCell{Row: r, Column: j, Name: c.Name, Value: c.Labels[s], Prob: p,
			States: c.Labels, Probs: append([]float64(nil), c.Row(r)...)})
	}
	return nil
}
