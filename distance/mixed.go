package distance

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/stats"
)

// mixedKinds reports whether s has variables of both kinds.
func mixedKinds(s *stats.Stats) bool {
	var disc, cont bool
	for j := range s.NumVars() {
		if s.Var(j).Kind == data.Discrete {
			disc = true
		} else {
			cont = true
		}
	}
	return disc && cont
}

// checkMixed returns an error if the Mixed distance of the given rank (0:
// DefaultRank with hiddenStates) cannot be computed from s, which has nd
// discrete variables.
func checkMixed(s *stats.Stats, nd, rank, hiddenStates int) error {
	if !s.HasPairs() {
		return errors.New("distance: the statistics have no pairwise tables")
	}
	nc := s.NumVars() - nd
	if nd > 0 && nc > 0 && !s.HasStateMoments() {
		return errors.New("distance: the statistics lack the moments of the continuous variables within the states of the discrete ones (they were written by an older latentree); compute them again from the data")
	}
	if rank == 1 {
		return errors.New("distance: the mixed distance of rank 1 has no canonical correlation (every distance would be 0); use rank 2 or more")
	}
	if hiddenStates < 0 {
		return fmt.Errorf("distance: %d hidden states: want at least 1 (0: 2)", hiddenStates)
	}
	k := rank
	if k <= 0 {
		k = DefaultRank(s, hiddenStates)
	}
	if k > 2 && nc > 0 {
		return fmt.Errorf("distance: the mixed distance of rank %d (%d canonical correlations) needs more than one feature per continuous variable, and statistics give one; bin the continuous columns of the data into quantiles (QuantileBins) and use the discrete distance of rank %d, or use rank 2 (2 hidden states)", k, k-1, k)
	}
	return nil
}

// mixedDist returns the Mixed distance of rank 2 (or of the given rank
// when both variables are discrete) between variables i and j of s, the
// reason when it is infinite, the (possibly grown) table buffer, and
// false if a singular value decomposition did not converge.
func mixedDist(s *stats.Stats, i, j, rank int, pseudo float64, buf []int64, failSVD func(ni, nj int) bool) (float64, string, []int64, bool) {
	ki, kj := s.Var(i).Kind, s.Var(j).Kind
	switch {
	case ki == data.Discrete && kj == data.Discrete:
		buf = s.Pair(i, j, buf)
		d, why, ok := discreteDist(buf, s.Var(i).NumStates(), s.Var(j).NumStates(), rank, pseudo, failSVD)
		return d, why, buf, ok
	case ki == data.Continuous && kj == data.Continuous:
		d, why := gaussianDist(s, i, j)
		return d, why, buf, true
	}
	d, why := etaDist(s, i, j)
	return d, why, buf, true
}

// etaDist returns −log η between a discrete and a continuous variable of
// s (in either order), η the correlation ratio of the continuous one on
// the discrete one over the rows where both are observed:
//
//	η² = Σ_x n_x (m_x − m)² / (Σ_x n_x (m_x − m)² + Σ_x M2_x)
//
// with n_x, m_x and M2_x the count, mean and sum of squared deviations of
// the continuous variable in state x and m its mean over those rows. η
// is the first canonical correlation of the discrete variable's state
// indicators with the continuous value.
func etaDist(s *stats.Stats, i, j int) (float64, string) {
	n, mean, m2, _ := s.StateMoments(i, j)
	var total int64
	var sum float64
	for x, c := range n {
		total += c
		sum += float64(c) * mean[x]
	}
	if total < 2 {
		return math.Inf(1), "fewer than 2 rows observe both"
	}
	grand := sum / float64(total)
	var between, within float64
	for x, c := range n {
		d := mean[x] - grand
		between += float64(c) * d * d
		within += m2[x]
	}
	switch {
	case !(between+within > 0):
		return math.Inf(1), "the continuous variable is constant where both are observed"
	case !(between > 0):
		return math.Inf(1), "uncorrelated (equal means in every state)"
	}
	return math.Max(0, -0.5*math.Log(between/(between+within))), ""
}

// mixedInformation is MutualInformation for statistics with both kinds of
// variables: −½ log(1 − ρ₁²) for every pair.
func mixedInformation(s *stats.Stats, pseudo float64) ([]float64, error) {
	if err := checkMixed(s, 1, 2, 0); err != nil {
		return nil, err
	}
	m := s.NumVars()
	out := make([]float64, m*m)
	var buf []int64
	for i := range m {
		for j := i + 1; j < m; j++ {
			d, _, b, ok := mixedDist(s, i, j, 2, pseudo, buf, nil)
			buf = b
			if !ok {
				return nil, fmt.Errorf("distance: mutual information of %q and %q: the singular value decomposition of their normalised joint table did not converge: %w", s.Var(i).Name, s.Var(j).Name, ErrNumerical)
			}
			rho := math.Exp(-d)
			mi := -0.5 * math.Log(math.Max(1e-300, 1-rho*rho))
			out[i*m+j], out[j*m+i] = mi, mi
		}
	}
	return out, nil
}

// Canonical returns the canonical-correlation distance −Σ_{l≤r} log ρ_l
// of two feature vectors f_i (ni features) and f_j (nj features) from the
// blocks of their covariance: Sii (ni×ni), Sij (ni×nj) and Sjj (nj×nj),
// row-major. The ρ_l are the r largest singular values of
// Sii^{-1/2} Sij Sjj^{-1/2}. It is the formula behind the Mixed distance,
// for callers with exact moments (a model's): the features of a discrete
// variable are the indicators of all its states but one, those of a
// continuous variable its value. The distance is +Inf, with a reason, when
// a covariance block is singular (a constant feature, or linearly
// dependent features) or fewer than r canonical correlations are
// positive; an error wraps ErrNumerical if the singular value
// decomposition does not converge.
func Canonical(sii, sij, sjj []float64, ni, nj, r int) (float64, string, error) {
	if ni < 1 || nj < 1 || len(sii) != ni*ni || len(sij) != ni*nj || len(sjj) != nj*nj {
		return 0, "", fmt.Errorf("distance: covariance blocks of %d, %d and %d values for %d and %d features", len(sii), len(sij), len(sjj), ni, nj)
	}
	if r < 1 {
		return 0, "", fmt.Errorf("distance: %d canonical correlations: want at least 1", r)
	}
	if r > min(ni, nj) {
		return math.Inf(1), fmt.Sprintf("fewer than %d features", r), nil
	}
	var li, lj mat.Cholesky
	if !li.Factorize(mat.NewSymDense(ni, append([]float64(nil), sii...))) || !lj.Factorize(mat.NewSymDense(nj, append([]float64(nil), sjj...))) {
		return math.Inf(1), "singular covariance (a constant feature)", nil
	}
	// C = Li⁻¹ Sij Lj⁻ᵀ with Sii = Li Liᵀ, Sjj = Lj Ljᵀ: its singular
	// values are the canonical correlations.
	var Li, Lj mat.TriDense
	li.LTo(&Li)
	lj.LTo(&Lj)
	var c, ct mat.Dense
	if err := c.Solve(&Li, mat.NewDense(ni, nj, append([]float64(nil), sij...))); err != nil {
		return math.Inf(1), "singular covariance (a constant feature)", nil
	}
	if err := ct.Solve(&Lj, c.T()); err != nil {
		return math.Inf(1), "singular covariance (a constant feature)", nil
	}
	var svd mat.SVD
	if !svd.Factorize(&ct, mat.SVDNone) {
		return math.NaN(), "", fmt.Errorf("distance: the singular value decomposition of the whitened cross-covariance did not converge: %w", ErrNumerical)
	}
	sv := svd.Values(nil)
	d := 0.0
	for l := range r {
		if !(sv[l] > 1e-15) {
			return math.Inf(1), fmt.Sprintf("%d canonical correlations, fewer than %d", l, r), nil
		}
		d -= math.Log(math.Min(1, sv[l]))
	}
	return d, "", nil
}
