package model

import (
	"fmt"
	"strings"
)

// Params names how Fit estimates a discrete model's parameters.
type Params int

const (
	// ParamsEM (the default) fits conditional probability tables by EM.
	ParamsEM Params = iota
	// ParamsSpectral fits a spectral model (package model/spectral): the hierarchical low-rank
	// tensor decomposition of Song et al. (ICML 2013), no iterations.
	ParamsSpectral
)

// String returns "em" or "spectral".
func (p Params) String() string {
	switch p {
	case ParamsEM:
		return "em"
	case ParamsSpectral:
		return "spectral"
	}
	return fmt.Sprintf("Params(%d)", int(p))
}

// ParseParams parses "em" or "spectral".
func ParseParams(s string) (Params, error) {
	switch strings.ToLower(s) {
	case "em":
		return ParamsEM, nil
	case "spectral":
		return ParamsSpectral, nil
	}
	return 0, fmt.Errorf("model: unknown parameter method %q (want em or spectral)", s)
}

// Linker names the estimator of the linker matrix of each edge between two
// hidden nodes of a spectral model (package model/spectral).
type Linker int

const (
	// LinkerMStar (the default) is the rank-k′ linker M* of Song et al.
	// (eqs. 5–6) on the local unfolding around the edge: the joint of the
	// representatives of the other neighbours of both ends.
	LinkerMStar Linker = iota
	// LinkerParikh is the spectral algorithm of Parikh et al. (2011): the
	// rank-k′ pseudo-inverse of the pair table of the edge's two
	// representatives.
	LinkerParikh
	// LinkerMStarFull is the paper's literal M*: the unfolding of the
	// whole current sub-tensor of Algorithm 1, computed over distinct rows
	// by the QR route of §5.2.
	LinkerMStarFull
)

// String returns "mstar", "parikh" or "mstar-full".
func (l Linker) String() string {
	switch l {
	case LinkerMStar:
		return "mstar"
	case LinkerParikh:
		return "parikh"
	case LinkerMStarFull:
		return "mstar-full"
	}
	return fmt.Sprintf("Linker(%d)", int(l))
}

// ParseLinker parses "mstar", "parikh" or "mstar-full".
func ParseLinker(s string) (Linker, error) {
	for _, l := range []Linker{LinkerMStar, LinkerParikh, LinkerMStarFull} {
		if strings.EqualFold(s, l.String()) {
			return l, nil
		}
	}
	return 0, fmt.Errorf("model: unknown linker %q (want mstar, parikh or mstar-full)", s)
}

// DefaultSpectralTol is the relative cutoff of singular values in every
// pseudo-inverse of a spectral fit: singular values below DefaultSpectralTol
// times the largest are treated as zero.
const DefaultSpectralTol = 1e-7
