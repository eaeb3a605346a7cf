package learn

import (
	"fmt"
	"strings"
)

// Method names a structure learner.
type Method string

// The learners. See the package documentation for what each does.
const (
	CLNJ    Method = "clnj"
	CLRG    Method = "clrg"
	NJ      Method = "nj"
	RG      Method = "rg"
	CLBlind Method = "clblind"
	ChowLiu Method = "chowliu"
	MST     Method = "mst"
	Quartet Method = "quartet"
	RegCLNJ Method = "regclnj"
	RegCLRG Method = "regclrg"
	LCM     Method = "lcm"
)

// Methods lists every learner, the default first.
var Methods = []Method{CLNJ, CLRG, NJ, RG, CLBlind, ChowLiu, MST, Quartet, RegCLNJ, RegCLRG, LCM}

var descriptions = map[Method]string{
	CLNJ:    "Chow–Liu tree, then neighbor joining on every neighbourhood (default)",
	CLRG:    "Chow–Liu tree, then recursive grouping on every neighbourhood",
	NJ:      "neighbor joining (Saitou & Nei 1987)",
	RG:      "recursive grouping (Choi et al. 2011, §4)",
	CLBlind: "Chow–Liu tree with the blind transformation",
	ChowLiu: "Chow–Liu tree: maximum mutual information, no hidden variables",
	MST:     "minimum spanning tree of the information distances",
	Quartet: "binary tree from quartet tests (Ishteva, Park & Song 2013)",
	RegCLNJ: "regularized CLNJ (§6.4): subtrees kept only when they improve the BIC",
	RegCLRG: "regularized CLRG",
	LCM:     "latent class model: one hidden variable over all observed ones, classes chosen by BIC",
}

// Description is a one-line description of the method.
func (m Method) Description() string { return descriptions[m] }

// MethodNames returns the names of all methods, comma-separated.
func MethodNames() string {
	s := make([]string, len(Methods))
	for i, m := range Methods {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

// ParseMethod returns the method with the given (case-insensitive) name;
// the empty string is the default, CLNJ.
func ParseMethod(s string) (Method, error) {
	if s == "" {
		return CLNJ, nil
	}
	for _, m := range Methods {
		if strings.EqualFold(s, string(m)) {
			return m, nil
		}
	}
	return "", fmt.Errorf("learn: unknown method %q (want one of %s)", s, MethodNames())
}

func (m Method) valid() bool { _, ok := descriptions[m]; return ok }

// UsesDistances reports whether the method learns from information
// distances (and so takes DistanceOptions and can run FromDistances).
func (m Method) UsesDistances() bool {
	switch m {
	case CLNJ, CLRG, NJ, RG, CLBlind, MST:
		return true
	}
	return false
}

// UsesRG reports whether the method runs recursive grouping with
// Options.RG.
func (m Method) UsesRG() bool { return m == RG || m == CLRG }

// Contracts reports whether the method contracts short edges after
// learning (Options.Contract).
func (m Method) Contracts() bool {
	switch m {
	case CLNJ, CLRG, NJ, RG:
		return true
	}
	return false
}

// Regularized reports whether the method is regularized CLGrouping, which
// fits parameters (discrete or Gaussian) while it learns the structure
// (Options.Reg).
func (m Method) Regularized() bool { return m == RegCLNJ || m == RegCLRG }

// NeedsRows reports whether the method needs the data rows, not only
// their statistics or distances.
func (m Method) NeedsRows() bool { return m == Quartet || m.Regularized() || m == LCM }
