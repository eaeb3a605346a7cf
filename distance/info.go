package distance

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/stats"
)

// Kind selects the information distance computed from statistics.
type Kind int

const (
	// Auto uses Gaussian for continuous variables, Discrete for discrete
	// ones and Mixed for a mix of the two kinds.
	Auto Kind = iota
	// Gaussian is −log|ρ_ij| (Choi et al. 2011, eq. 5).
	Gaussian
	// Discrete is the general discrete distance of Lake (1994):
	// −log |det J_ij| + ½ log det M_i + ½ log det M_j (Choi et al. 2011,
	// eq. 9), for variables with equal numbers of states. With Rank k, or
	// by default when the variables have different numbers of states (see
	// DefaultRank), it is the rank-k distance (see InfoOptions.Rank).
	Discrete
	// Symmetric is −(K−1) log(1 − K θ̂_ij) with θ̂_ij the estimated
	// crossover probability P(x_i ≠ x_j)/(K−1), for symmetric discrete
	// models (Choi et al. 2011, eq. 10).
	Symmetric
	// Mixed is the canonical-correlation distance −Σ_{l≤r} log ρ_l for
	// any mix of discrete and continuous variables (see "Mixed data" in
	// the package documentation): with r = 1 (rank 2, the default) |ρ|
	// of two continuous variables, the correlation ratio η of a
	// continuous variable on a discrete one, and the second singular
	// value of the normalised joint table of two discrete ones.
	Mixed
)

// ParseKind returns the distance kind with the given name: auto,
// gaussian, discrete, symmetric or mixed.
func ParseKind(s string) (Kind, error) {
	switch s {
	case "auto":
		return Auto, nil
	case "gaussian":
		return Gaussian, nil
	case "discrete":
		return Discrete, nil
	case "symmetric":
		return Symmetric, nil
	case "mixed":
		return Mixed, nil
	}
	return 0, fmt.Errorf("distance: unknown kind %q (want auto, gaussian, discrete, symmetric or mixed)", s)
}

// InfoOptions configures Information.
type InfoOptions struct {
	Kind Kind
	// Rank k > 0 replaces |det J_ij| / √(det M_i det M_j) by the product
	// of the k largest singular values of the normalised joint table
	// M_i^{-1/2} J_ij M_j^{-1/2}, as in the Spectral@k distance of
	// Anandkumar et al. (2011). For k equal to the number of states it is
	// the Lake distance; for k smaller it stays finite when hidden
	// variables have fewer states than observed ones, and it is defined
	// for variables with different numbers of states (k ≤ both).
	//
	// Rank 0 means Lake's distance when every discrete variable has the
	// same number of states, and the rank-k distance with k =
	// DefaultRank(s, HiddenStates) when they do not.
	//
	// For the Mixed distance, Rank k means r = k−1 canonical
	// correlations (the largest singular value of a normalised table,
	// 1, is the trivial one; rank 2 is r = 1), and Rank 0 means
	// DefaultRank. Statistics give r = 1 only when some variable is
	// continuous: a larger r needs the rows (see QuantileBins).
	Rank int
	// HiddenStates is the number of states expected of the hidden
	// variables (0: 2). It only sets the default rank for variables with
	// different numbers of states (DefaultRank).
	HiddenStates int
	// Pseudo is a pseudo-count added to every cell of each pairwise count
	// table before normalising (0: none; it must be finite and not
	// negative).
	Pseudo float64
	// Workers is the number of goroutines (0: GOMAXPROCS).
	Workers int

	// failSVD, when not nil, is asked before each decomposition of an
	// ni×nj table whether it should fail as if LAPACK had not converged.
	// Only tests set it.
	failSVD func(ni, nj int) bool
}

// Degenerate reports a pair of variables whose distance is infinite.
type Degenerate struct {
	A, B   string
	Reason string
}

// Information computes the information distances between all variables
// of s. Pairs whose distance is infinite (independent variables, a
// singular joint table, no rows observing both) get +Inf and are listed.
// A singular value decomposition that does not converge is an error
// wrapping ErrNumerical, naming the pair: it says nothing about the
// dependence of the pair, so it is not turned into a distance.
func Information(s *stats.Stats, opt InfoOptions) (*Matrix, []Degenerate, error) {
	m := s.NumVars()
	if m == 0 {
		return nil, nil, errors.New("distance: no variables")
	}
	if err := checkPseudo(opt.Pseudo); err != nil {
		return nil, nil, err
	}
	kind := opt.Kind
	nd := 0
	for j := 0; j < m; j++ {
		if s.Var(j).Kind == data.Discrete {
			nd++
		}
	}
	if kind == Auto {
		switch nd {
		case m:
			kind = Discrete
		case 0:
			kind = Gaussian
		default:
			kind = Mixed
		}
	}
	switch kind {
	case Gaussian:
		if nd > 0 {
			return nil, nil, errors.New("distance: the Gaussian distance needs continuous variables")
		}
	case Discrete, Symmetric:
		if nd < m {
			return nil, nil, errors.New("distance: discrete distances need discrete variables")
		}
		if !s.HasPairs() {
			return nil, nil, errors.New("distance: the statistics have no pairwise tables")
		}
	case Mixed:
		if err := checkMixed(s, nd, opt.Rank, opt.HiddenStates); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, fmt.Errorf("distance: unknown kind %d", kind)
	}
	rank := opt.Rank
	if (kind == Discrete || kind == Mixed) && rank <= 0 {
		if opt.HiddenStates < 0 {
			return nil, nil, fmt.Errorf("distance: %d hidden states: want at least 1 (0: 2)", opt.HiddenStates)
		}
		rank = DefaultRank(s, opt.HiddenStates)
	}
	out, err := NewMatrix(s.Names())
	if err != nil {
		return nil, nil, err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// The degenerate pairs each worker finds (few: no m×m table of
	// reasons), put in order of the pairs after.
	type reason struct {
		i, j int
		why  string
	}
	found := make([][]reason, workers)
	var wg sync.WaitGroup
	rows := make(chan int)
	errs := make([]error, m) // by row
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []int64
			mine := &found[w]
			for i := range rows {
				for j := i + 1; j < m; j++ {
					var d float64
					var why string
					switch kind {
					case Gaussian:
						d, why = gaussianDist(s, i, j)
					case Discrete:
						buf = s.Pair(i, j, buf)
						var ok bool
						d, why, ok = discreteDist(buf, s.Var(i).NumStates(), s.Var(j).NumStates(), rank, opt.Pseudo, opt.failSVD)
						if !ok && errs[i] == nil {
							errs[i] = fmt.Errorf("distance: information distance between %q and %q: the singular value decomposition of their normalised joint table did not converge: %w", s.Var(i).Name, s.Var(j).Name, ErrNumerical)
						}
					case Symmetric:
						buf = s.Pair(i, j, buf)
						d, why = symmetricDist(buf, s.Var(i).NumStates(), s.Var(j).NumStates(), opt.Pseudo)
					case Mixed:
						var ok bool
						d, why, buf, ok = mixedDist(s, i, j, rank, opt.Pseudo, buf, opt.failSVD)
						if !ok && errs[i] == nil {
							errs[i] = fmt.Errorf("distance: information distance between %q and %q: the singular value decomposition of their normalised joint table did not converge: %w", s.Var(i).Name, s.Var(j).Name, ErrNumerical)
						}
					}
					out.D[i*m+j], out.D[j*m+i] = d, d
					if why != "" {
						*mine = append(*mine, reason{i, j, why})
					}
				}
			}
		}()
	}
	for i := 0; i < m; i++ {
		rows <- i
	}
	close(rows)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	all := slices.Concat(found...)
	slices.SortFunc(all, func(a, b reason) int { return cmp.Or(cmp.Compare(a.i, b.i), cmp.Compare(a.j, b.j)) })
	var deg []Degenerate
	for _, r := range all {
		deg = append(deg, Degenerate{s.Var(r.i).Name, s.Var(r.j).Name, r.why})
	}
	return out, deg, nil
}

// DefaultRank returns the rank k of the discrete distance that Information
// uses when InfoOptions.Rank is 0: 0 (Lake's determinant distance) when
// the discrete variables of s all have the same number of states, and
// otherwise
//
//	k = min(hiddenStates, the smallest number of states of a variable)
//
// with hiddenStates 0 read as 2, variables of one state (constant, at
// infinite distance from every other) left out of the minimum, and k at
// least 2 (the largest singular value of a normalised joint table is
// always 1, so one would make every distance 0). When s also has
// continuous variables (the Mixed distance) it is that k even when the
// discrete variables have equal numbers of states: the mixed distance has
// no determinant form.
//
// Why this k: when every hidden variable of a latent tree has k states
// and every observed variable at least k, the joint table of two observed
// variables factors through a k-state hidden variable on their path into
// an n_i×k, a k×k and a k×n_j factor. The product of the k nonzero
// singular values of the normalised table is then the product of those of
// its factors (write the outer factors as an orthonormal basis times a
// k×k triangle, by QR, and take the determinant of the k×k middle), so
// the rank-k distance adds up along the path. One k for all pairs is
// needed for that: with k larger than the hidden variables' states the
// k-th singular value is 0 (an infinite distance), and a k above a
// variable's number of states is undefined for its pairs. Observed
// variables with more than k states inside the tree (not leaves) break
// the additivity; there the determinant distance, which needs equal
// numbers of states, is the exact one.
func DefaultRank(s *stats.Stats, hiddenStates int) int {
	lo, hi, constant, continuous := math.MaxInt, 0, false, false
	for j := 0; j < s.NumVars(); j++ {
		v := s.Var(j)
		if v.Kind != data.Discrete {
			continuous = true
			continue
		}
		if n := v.NumStates(); n < 2 {
			constant = true
		} else {
			lo, hi = min(lo, n), max(hi, n)
		}
	}
	if hi == 0 || lo == hi && !constant && !continuous {
		return 0
	}
	k := hiddenStates
	if k <= 0 {
		k = 2
	}
	return max(2, min(k, lo))
}

func gaussianDist(s *stats.Stats, i, j int) (float64, string) {
	if s.PairCount(i, j) < 2 {
		return math.Inf(1), "fewer than 2 rows observe both"
	}
	r := s.Corr(i, j)
	switch {
	case math.IsNaN(r):
		return math.Inf(1), "correlation undefined (a constant variable)"
	case r == 0:
		return math.Inf(1), "uncorrelated"
	}
	return math.Max(0, -math.Log(math.Abs(r))), ""
}

// normalised returns the joint table J (with pseudo-counts) and its row
// and column sums, or ok false when no count remains.
func normalised(c []int64, ni, nj int, pseudo float64) (J, pi, pj []float64, ok bool) {
	J = make([]float64, ni*nj)
	total := 0.0
	for k, x := range c {
		v := float64(x) + pseudo
		J[k] = v
		total += v
	}
	if !(total > 0) {
		return nil, nil, nil, false
	}
	pi, pj = make([]float64, ni), make([]float64, nj)
	for a := 0; a < ni; a++ {
		for b := 0; b < nj; b++ {
			v := J[a*nj+b] / total
			J[a*nj+b] = v
			pi[a] += v
			pj[b] += v
		}
	}
	return J, pi, pj, true
}

// discreteDist computes −Σ_{s≤k} log σ_s(M_i^{-1/2} J M_j^{-1/2}) with k
// = rank, or the full Lake distance when rank ≤ 0. It reports false if the
// singular value decomposition did not converge.
func discreteDist(c []int64, ni, nj, rank int, pseudo float64, failSVD func(ni, nj int) bool) (float64, string, bool) {
	J, pi, pj, ok := normalised(c, ni, nj, pseudo)
	if !ok {
		return math.Inf(1), "no rows observe both", true
	}
	for a, p := range pi {
		if p == 0 {
			return math.Inf(1), fmt.Sprintf("state %d of the first variable never occurs with the second observed", a), true
		}
	}
	for b, p := range pj {
		if p == 0 {
			return math.Inf(1), fmt.Sprintf("state %d of the second variable never occurs with the first observed", b), true
		}
	}
	if rank > 0 && min(ni, nj) < 2 {
		// The only singular value of a constant variable's table is 1.
		return math.Inf(1), "a variable with one state (constant)", true
	}
	if rank <= 0 && ni == 2 && nj == 2 {
		det := J[0]*J[3] - J[1]*J[2]
		if det == 0 {
			return math.Inf(1), "singular joint table (independent)", true
		}
		d := -math.Log(math.Abs(det)) + 0.5*(math.Log(pi[0])+math.Log(pi[1])+math.Log(pj[0])+math.Log(pj[1]))
		return math.Max(0, d), "", true
	}
	k := rank
	if k <= 0 || k > min(ni, nj) {
		k = min(ni, nj)
	}
	B := mat.NewDense(ni, nj, nil)
	for a := 0; a < ni; a++ {
		for b := 0; b < nj; b++ {
			B.Set(a, b, J[a*nj+b]/math.Sqrt(pi[a]*pj[b]))
		}
	}
	var svd mat.SVD
	if (failSVD != nil && failSVD(ni, nj)) || !svd.Factorize(B, mat.SVDNone) {
		return math.NaN(), "", false
	}
	sv := svd.Values(nil)
	d := 0.0
	for s := 0; s < k; s++ {
		if !(sv[s] > 1e-15) {
			return math.Inf(1), fmt.Sprintf("joint table has rank %d < %d", s, k), true
		}
		d -= math.Log(sv[s])
	}
	return math.Max(0, d), "", true
}

// ErrNumerical is wrapped by the error of a computation that failed
// numerically (a singular value decomposition that did not converge). The
// quartet package wraps the same value (quartet.ErrNumerical).
var ErrNumerical = errors.New("latentree: numerical failure")

// checkPseudo rejects a pseudo-count that is negative or not finite (a
// negative one can make table cells negative, and the distances NaN).
func checkPseudo(pseudo float64) error {
	if !(pseudo >= 0) || math.IsInf(pseudo, 1) {
		return fmt.Errorf("distance: pseudo-count %g must be finite and not negative", pseudo)
	}
	return nil
}

func symmetricDist(c []int64, ni, nj int, pseudo float64) (float64, string) {
	if ni != nj {
		return math.Inf(1), "different numbers of states"
	}
	J, _, _, ok := normalised(c, ni, nj, pseudo)
	if !ok {
		return math.Inf(1), "no rows observe both"
	}
	same := 0.0
	for a := 0; a < ni; a++ {
		same += J[a*nj+a]
	}
	K := float64(ni)
	theta := (1 - same) / (K - 1)
	x := 1 - K*theta
	if !(x > 0) {
		return math.Inf(1), "crossover probability at or above 1/K"
	}
	return math.Max(0, -(K-1)*math.Log(x)), ""
}

// TableMutualInformation returns the mutual information (nats) of the two
// variables of an ni×nj row-major table of counts or probabilities (it is
// normalised here; 0 for an empty table).
func TableMutualInformation(p []float64, ni, nj int) float64 {
	total := 0.0
	for _, v := range p {
		total += v
	}
	if !(total > 0) {
		return 0
	}
	pi, pj := make([]float64, ni), make([]float64, nj)
	for a := 0; a < ni; a++ {
		for b := 0; b < nj; b++ {
			v := p[a*nj+b] / total
			pi[a] += v
			pj[b] += v
		}
	}
	mi := 0.0
	for a := 0; a < ni; a++ {
		for b := 0; b < nj; b++ {
			if v := p[a*nj+b] / total; v > 0 {
				mi += v * math.Log(v/(pi[a]*pj[b]))
			}
		}
	}
	return max(mi, 0)
}

// MutualInformation returns the pairwise mutual information (nats) of the
// variables of s, m×m row-major: for discrete variables from the count
// tables (plus pseudo-counts), for continuous ones −½ log(1 − ρ²). It is
// the edge weight of the Chow–Liu tree. The pseudo-count must be finite and
// not negative.
//
// When s has variables of both kinds, every pair gets −½ log(1 − ρ₁²),
// with ρ₁ its first canonical correlation (ρ₁ = e^{−d}, d the Mixed
// distance of rank 2): the mutual information of two Gaussian variables
// with that correlation. One measure for every pair keeps the weights of
// the two kinds comparable, and since it is monotone in the Mixed
// distance the Chow–Liu tree is then the minimum spanning tree of those
// distances, which is the tree itself when the data come from a tree
// whose observed internal nodes are continuous or binary (ρ₁ is then a
// product of edge terms along paths).
func MutualInformation(s *stats.Stats, pseudo float64) ([]float64, error) {
	if err := checkPseudo(pseudo); err != nil {
		return nil, err
	}
	if mixedKinds(s) {
		return mixedInformation(s, pseudo)
	}
	m := s.NumVars()
	out := make([]float64, m*m)
	var buf []int64
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			vi, vj := s.Var(i), s.Var(j)
			var mi float64
			switch {
			case vi.Kind == data.Continuous && vj.Kind == data.Continuous:
				r := s.Corr(i, j)
				if math.IsNaN(r) {
					r = 0
				}
				mi = -0.5 * math.Log(math.Max(1e-300, 1-r*r))
			case vi.Kind == data.Discrete && vj.Kind == data.Discrete:
				if !s.HasPairs() {
					return nil, errors.New("distance: the statistics have no pairwise tables")
				}
				buf = s.Pair(i, j, buf)
				ni, nj := vi.NumStates(), vj.NumStates()
				if J, _, _, ok := normalised(buf, ni, nj, pseudo); ok {
					mi = TableMutualInformation(J, ni, nj)
				}
			default:
				return nil, fmt.Errorf("distance: mutual information between discrete %q and continuous %q is not supported", vi.Name, vj.Name)
			}
			out[i*m+j], out[j*m+i] = mi, mi
		}
	}
	return out, nil
}
