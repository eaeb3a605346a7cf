package spectral

import "github.com/latentree/latentree/model"

// Options configures Fit.
type Options struct {
	// HiddenStates is k′, the rank given to every hidden variable (0: 2).
	HiddenStates int
	// Linker is the estimator of the hidden–hidden linkers.
	Linker model.Linker
	// Tol is the relative singular-value cutoff (0: model.DefaultSpectralTol).
	Tol float64
	// Workers is the number of goroutines (0: GOMAXPROCS).
	Workers int
}

// EdgeSpectrum reports the linker of one edge between two tensor-network
// nodes of a Model.
type EdgeSpectrum struct {
	// Parent and Child name the edge's ends (Child is farther from the
	// root); A and B are the representatives the linker joins (A on the
	// parent's side, B on the child's).
	Parent string `json:"parent"`
	Child  string `json:"child"`
	A      string `json:"a"`
	B      string `json:"b"`
	// Rank is the rank used (at most k′, less when singular values were
	// cut); Singular are the singular values of the matrix the rank was
	// taken from, largest first; Cut counts those below the cutoff.
	Rank     int       `json:"rank"`
	Singular []float64 `json:"singular"`
	Cut      int       `json:"cut,omitempty"`
}
