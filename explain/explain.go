package explain

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/discrete"
	"github.com/latentree/latentree/model/gaussian"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/model/spectral"
)

// Options configures Model and Noisyor. The zero value is usable.
type Options struct {
	// Data, when set, gives the states' shares: the mean over its rows of
	// each hidden variable's posterior (missing cells marginalised).
	// Otherwise the shares are the model's marginals. Its columns must be
	// the model's observed variables (the network's effects). A Gaussian
	// model has no states and does not use it.
	Data *data.Dataset
	// Top is the number of observed variables listed per hidden variable
	// and per state (0: 5); more than there are lists them all.
	Top int
	// LabelWords is the number of observed names in a label (0: 3).
	LabelWords int
	// Workers is the number of goroutines computing posteriors (0:
	// GOMAXPROCS).
	Workers int
	// Profiles gives every state of every hidden variable of a discrete
	// model (every discrete hidden variable of a mixed one) its profile
	// (State.Profile). A model with one hidden variable
	// (a latent class model) always gets them.
	Profiles bool
}

// riseTol is the smallest rise of a probability listed: rises below it
// are rounding.
const riseTol = 1e-12

// Default values of Options.
const (
	DefaultTop        = 5
	DefaultLabelWords = 3
)

func (o Options) top() int {
	if o.Top == 0 {
		return DefaultTop
	}
	return o.Top
}

func (o Options) labelWords() int {
	if o.LabelWords == 0 {
		return DefaultLabelWords
	}
	return o.LabelWords
}

func (o Options) validate() error {
	switch {
	case o.Top < 0:
		return fmt.Errorf("explain: Top %d is negative", o.Top)
	case o.LabelWords < 0:
		return fmt.Errorf("explain: LabelWords %d is negative", o.LabelWords)
	case o.Workers < 0:
		return fmt.Errorf("explain: Workers %d is negative", o.Workers)
	}
	return nil
}

// Kinds of Explanation.
const (
	KindDiscrete = "discrete"
	KindGaussian = "gaussian"
	KindNoisyor  = "noisy-or"
	KindMixed    = "mixed"
)

// Explanation explains every hidden variable of a model.
type Explanation struct {
	// Kind is "discrete", "gaussian", "mixed" or "noisy-or".
	Kind string `json:"kind"`
	// FromData says whether the shares are mean posteriors over Rows rows
	// of data (else they are the model's marginals).
	FromData bool `json:"from_data"`
	Rows     int  `json:"rows,omitempty"`
	// Hidden are the hidden variables top-down from the root
	// (breadth-first, as tree.Rooted.Order); for a noisy-or network the
	// sources in the network's order.
	Hidden []Hidden `json:"hidden"`
}

// Hidden explains one hidden variable.
type Hidden struct {
	// Node is the tree node identifier (noisy-or: the source's index).
	Node int    `json:"node"`
	Name string `json:"name"`
	// Label is the names of its first LabelWords related observed
	// variables joined by " · ".
	Label string `json:"label"`
	// Parent is the name of the node's parent in the rooted tree (empty
	// for the root and for noisy-or sources).
	Parent string `json:"parent,omitempty"`
	// Depth is the number of edges from the root (0 for noisy-or
	// sources).
	Depth int `json:"depth"`
	// Kind is the hidden variable's kind in a mixed model, "discrete" or
	// "continuous" (empty for other models, whose variables all have the
	// model's kind).
	Kind string `json:"kind,omitempty"`
	// Related are the Top observed variables that characterise it, most
	// related first: by mutual information (discrete), by |correlation|
	// (Gaussian), by lowest failure probability (noisy-or), by Strength
	// (mixed).
	Related []Related `json:"related"`
	// States are its states (discrete, and the discrete hidden variables
	// of a mixed model; noisy-or: "off" and "on"), each with its share and
	// the observed values whose probability rises most.
	States []State `json:"states,omitempty"`
	// Classification is how sharply the rows of Options.Data are
	// assigned to the states of a discrete hidden variable (nil without
	// data).
	Classification *Classification `json:"classification,omitempty"`
}

// Related is an observed variable related to a hidden one.
type Related struct {
	Name string `json:"name"`
	// MI is the mutual information (nats) of the two variables (discrete
	// models and noisy-or networks).
	MI float64 `json:"mi,omitempty"`
	// Corr is their correlation, signed (Gaussian models; in a mixed
	// model, a continuous hidden variable and a continuous observed one).
	Corr float64 `json:"corr,omitempty"`
	// Strength is their first canonical correlation, in [0, 1] (mixed
	// models): |Corr| for two continuous variables, the correlation ratio
	// η (√ of the share of the continuous one's variance explained by the
	// discrete one) for a discrete and a continuous one, and the first
	// non-trivial singular value of P(a, b)/√(P(a) P(b)) for two discrete
	// ones. exp(−d) for the canonical-correlation information distance d.
	Strength float64 `json:"strength,omitempty"`
	// Failure is the failure probability of the edge (noisy-or).
	Failure float64 `json:"failure,omitempty"`
}

// State is one state of a hidden variable.
type State struct {
	Label string `json:"label"`
	// Share is the share of the rows in the state: the mean posterior
	// over the data's rows, or the model's marginal probability.
	Share float64 `json:"share"`
	// Rising are the Top observed variables whose probability of some
	// state rises most when the hidden variable is in this state, largest
	// rise Prob − Base first; only rises above zero are listed (in a mixed
	// model, the discrete observed variables).
	Rising []Rise `json:"rising"`
	// Shifts are the Top continuous observed variables of a mixed model
	// whose mean moves most in this state, by |Z|, largest first.
	Shifts []Shift `json:"shifts,omitempty"`
	// Profile is the class profile (discrete and mixed models with one
	// hidden variable, or Options.Profiles): for every observed variable,
	// in the model's order, its most probable value in this state and the
	// full conditional distribution (a continuous variable of a mixed
	// model: its mean and standard deviation in this state).
	Profile []Answer `json:"profile,omitempty"`
}

// Answer is an observed variable's distribution given a hidden state.
type Answer struct {
	Name string `json:"name"`
	// Mode is the most probable value, Prob its probability.
	Mode string  `json:"mode"`
	Prob float64 `json:"prob"`
	// States and Probs are the full conditional distribution
	// P(x = States[i] | h = state) = Probs[i].
	States []string  `json:"states"`
	Probs  []float64 `json:"probs"`
	// Continuous marks a continuous variable of a mixed model, whose
	// distribution in the state has mean Mean and standard deviation SD
	// (and no Mode, Prob, States or Probs). Its JSON is {"name", "mean",
	// "sd"}.
	Continuous bool    `json:"-"`
	Mean       float64 `json:"-"`
	SD         float64 `json:"-"`
}

// MarshalJSON writes a discrete variable's answer with its fields and a
// continuous one as {"name", "mean", "sd"}.
func (a Answer) MarshalJSON() ([]byte, error) {
	if a.Continuous {
		return json.Marshal(struct {
			Name string  `json:"name"`
			Mean float64 `json:"mean"`
			SD   float64 `json:"sd"`
		}{a.Name, a.Mean, a.SD})
	}
	type plain Answer
	return json.Marshal(plain(a))
}

// Shift is how far a continuous observed variable's mean moves when a
// discrete hidden variable is in a state.
type Shift struct {
	Name string `json:"name"`
	// Mean is E[x | h = state], Base is E[x] and SD the standard
	// deviation of x; Z = (Mean − Base)/SD, the shift in SD units.
	Mean float64 `json:"mean"`
	Base float64 `json:"base"`
	SD   float64 `json:"sd"`
	Z    float64 `json:"z"`
}

// Rise is an observed value made more likely by a hidden state.
type Rise struct {
	Name string `json:"name"`
	// State is the observed variable's state whose probability rises.
	State string `json:"state"`
	// Prob is P(x = State | h = s), Base is P(x = State).
	Prob float64 `json:"prob"`
	Base float64 `json:"base"`
}

// Model explains the hidden variables of a discrete, Gaussian or mixed
// (conditional-Gaussian) latent tree model; other models (such as spectral ones, which have no
// parameters for their hidden variables) are an error.
func Model(m model.Model, opt Options) (*Explanation, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	switch x := m.(type) {
	case *discrete.Model:
		if x == nil {
			return nil, errors.New("explain: nil model")
		}
		return explainDiscrete(x, opt)
	case *gaussian.Model:
		if x == nil {
			return nil, errors.New("explain: nil model")
		}
		return explainGaussian(x, opt)
	case *mixed.Model:
		if x == nil {
			return nil, errors.New("explain: nil model")
		}
		return explainMixed(x, opt)
	case *spectral.Model:
		return nil, errors.New("explain: a spectral model has no parameters for its hidden variables; fit a discrete model (EM) to explain them")
	case nil:
		return nil, errors.New("explain: nil model")
	default:
		return nil, fmt.Errorf("explain: %T models are not supported (discrete, Gaussian and mixed latent tree models, and noisy-or networks with Noisyor)", m)
	}
}

// Labels maps every hidden variable's name to its label.
func (e *Explanation) Labels() map[string]string {
	out := make(map[string]string, len(e.Hidden))
	for _, h := range e.Hidden {
		out[h.Name] = h.Label
	}
	return out
}

// label joins the names of the first n related variables.
func label(rel []Related, n int) string {
	names := make([]string, 0, n)
	for i := 0; i < len(rel) && i < n; i++ {
		names = append(names, rel[i].Name)
	}
	return strings.Join(names, " · ")
}

// topIndices returns the indices of the n largest scores, largest first;
// equal scores keep their input order and NaN scores are left out. It
// keeps a sorted list of at most n, O(len(score)·n).
func topIndices(score []float64, n int) []int {
	// Top may be far more than there are scores: allocate for the scores.
	n = min(n, len(score))
	idx := make([]int, 0, n+1)
	for i, s := range score {
		if math.IsNaN(s) {
			continue
		}
		pos := len(idx)
		for pos > 0 && score[idx[pos-1]] < s {
			pos--
		}
		if pos >= n {
			continue
		}
		idx = slices.Insert(idx, pos, i)
		if len(idx) > n {
			idx = idx[:n]
		}
	}
	return idx
}

// scored is an item and its score for topN.
type scored[T any] struct {
	score float64
	item  T
}

// topN returns the items of the n largest scores, as topIndices.
func topN[T any](c []scored[T], n int) []T {
	score := make([]float64, len(c))
	for i, x := range c {
		score[i] = x.score
	}
	idx := topIndices(score, n)
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = c[j].item
	}
	return out
}

// mutualInfo returns the mutual information (nats) of a joint table p
// (ka×kb row-major) whose margins are pa and pb.
func mutualInfo(p, pa, pb []float64, kb int) float64 {
	mi := 0.0
	for a, x := range pa {
		for b, y := range pb {
			j := p[a*kb+b]
			if j > 0 && x > 0 && y > 0 {
				mi += j * math.Log(j/(x*y))
			}
		}
	}
	return math.Max(mi, 0)
}
