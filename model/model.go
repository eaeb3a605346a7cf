package model

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/internal/names"
	"github.com/latentree/latentree/tree"
)

// Model is a latent tree model of any family: a *discrete.Model (package
// model/discrete), a *gaussian.Model (package model/gaussian) or a
// *spectral.Model (package model/spectral) or a *mixed.Model (package
// model/mixed, discrete and continuous nodes), which offer the same
// operations. Data given to a model
// must have exactly the model's observed variables as columns (in any
// order, matched by name), discrete for a discrete or spectral model,
// continuous for a Gaussian one, and of each variable's kind for a mixed
// one; missing cells are marginalised
// everywhere.
type Model interface {
	// Structure returns the model's tree (shared, not copied).
	Structure() *tree.Tree
	// RootNode returns the node at which the model is rooted.
	RootNode() int
	// Kind is the kind of the model's variables: data.Discrete,
	// data.Continuous, or data.Mixed for a model over both (model/mixed).
	Kind() data.Kind
	// NodeKind is the kind of node v: data.Discrete or data.Continuous
	// (every node of a discrete or Gaussian model has the model's Kind).
	NodeKind(v int) data.Kind
	// Validate checks the parameters.
	Validate() error
	// NumParams returns κ, the number of free parameters.
	NumParams() int
	// LogLikelihood returns the log-likelihood of every row of d and
	// their sum.
	LogLikelihood(d *data.Dataset, opt InferOptions) ([]float64, float64, error)
	// Score returns the log-likelihood of d and the scores derived from
	// it (BIC, AIC).
	Score(d *data.Dataset, opt InferOptions) (*Score, error)
	// Conditionals returns, for each of the given nodes (hidden or
	// observed), its distribution in every row of d given the row's
	// observed cells.
	Conditionals(d *data.Dataset, nodes []int, opt InferOptions) ([]Conditional, error)
	// Impute completes d: every missing cell gets its most likely value
	// (discrete) or its conditional mean (continuous), and the
	// Imputation keeps the distribution of every filled cell.
	Impute(d *data.Dataset, opt ImputeOptions) (*Imputation, error)
	// Sample draws n independent rows of the observed variables.
	Sample(src rand.Source, n int) (*data.Dataset, error)
	// InformationDistances returns the exact information distances
	// between all pairs of the given nodes, row-major
	// len(nodes)×len(nodes).
	InformationDistances(nodes []int) ([]float64, error)
	// WriteJSON writes the model as a latentree-model JSON document,
	// which Read reads back.
	WriteJSON(w io.Writer, prov *Provenance) error
}

// CheckNodes returns an error for a node that is not in t.
func CheckNodes(t *tree.Tree, nodes []int) error {
	for _, v := range nodes {
		if !t.Has(v) {
			return fmt.Errorf("model: node %d is not in the tree", v)
		}
	}
	return nil
}

// Conditional is the distribution of one node given the observed cells of
// each row of a dataset.
type Conditional struct {
	// Node and Name identify the node.
	Node int
	Name string
	// Labels are the node's states (discrete models); Prob[r*len(Labels)+s]
	// is the probability of state s in row r. For an observed cell it is
	// the point mass on the observed state.
	Labels []string
	Prob   []float64
	// Mean[r] and SD[r] are the conditional mean and standard deviation
	// in row r (Gaussian models; an observed cell has its value and SD 0).
	Mean, SD []float64
}

// Row returns the distribution over the node's states in row r (discrete
// models).
func (c *Conditional) Row(r int) []float64 {
	k := len(c.Labels)
	return c.Prob[r*k : (r+1)*k]
}

// Mode returns the most likely state in row r (the first of ties) and its
// probability (discrete models).
func (c *Conditional) Mode(r int) (int, float64) {
	p := c.Row(r)
	best := 0
	for s, x := range p {
		if x > p[best] {
			best = s
		}
	}
	return best, p[best]
}

// matchColumns checks that the columns of d are exactly the observed
// variables of t, and otherwise names the variables missing on each side.
func matchColumns(t *tree.Tree, d *data.Dataset) error {
	if err := CheckColumns(t, d.Names()); err != nil {
		return err
	}
	return nil
}

// CheckColumns returns a *MismatchError naming the observed variables of t
// that are not among the column names, and the names that are not
// observed variables of t; nil when they are the same sets.
func CheckColumns(t *tree.Tree, names []string) error {
	var lack, extra []string
	have := make(map[string]bool, len(names))
	for _, name := range names {
		have[name] = true
		if v, ok := t.Lookup(name); !ok || t.IsHidden(v) {
			extra = append(extra, name)
		}
	}
	for _, name := range t.ObservedNames() {
		if !have[name] {
			lack = append(lack, name)
		}
	}
	if len(lack) == 0 && len(extra) == 0 {
		return nil
	}
	return &MismatchError{MissingInData: lack, NotInModel: extra}
}

// MismatchError says that a dataset's columns are not the model's observed
// variables.
type MismatchError struct {
	// MissingInData are the model's observed variables that the data do
	// not have; NotInModel the data's columns that are not observed
	// variables of the model.
	MissingInData, NotInModel []string
}

func (e *MismatchError) Error() string {
	var parts []string
	if len(e.MissingInData) > 0 {
		parts = append(parts, fmt.Sprintf("%d variable(s) of the model are not columns of the data: %s", len(e.MissingInData), names.Quote(e.MissingInData, 10)))
	}
	if len(e.NotInModel) > 0 {
		parts = append(parts, fmt.Sprintf("%d column(s) of the data are not observed variables of the model: %s", len(e.NotInModel), names.Quote(e.NotInModel, 10)))
	}
	return "model: the data do not match the model: " + strings.Join(parts, "; ")
}

// Covariates returns the covariate columns of m: columns its data have
// besides its observed variables, which a part of the model is
// conditioned on (a discrete model's root regression,
// discrete.Model.Regression); nil for a model without them. A covariate's
// Kind is Continuous or Discrete (categorical, with its States).
func Covariates(m Model) []data.Variable {
	if c, ok := m.(interface{ Covariates() []data.Variable }); ok {
		return c.Covariates()
	}
	return nil
}

// CheckModelColumns is CheckColumns for m's data, whose columns are m's
// observed variables and its covariates (Covariates): a missing covariate
// is named among the variables missing in the data.
func CheckModelColumns(m Model, names []string) error {
	cov := Covariates(m)
	if len(cov) == 0 {
		return CheckColumns(m.Structure(), names)
	}
	have := make(map[string]bool, len(names))
	rest := make([]string, 0, len(names))
	isCov := make(map[string]bool, len(cov))
	for _, c := range cov {
		isCov[c.Name] = true
	}
	for _, n := range names {
		have[n] = true
		if !isCov[n] {
			rest = append(rest, n)
		}
	}
	var lack []string
	for _, c := range cov {
		if !have[c.Name] {
			lack = append(lack, c.Name)
		}
	}
	err := CheckColumns(m.Structure(), rest)
	if len(lack) == 0 {
		return err
	}
	mm := &MismatchError{}
	if err != nil {
		mm = err.(*MismatchError)
	}
	mm.MissingInData = append(mm.MissingInData, lack...)
	return mm
}
