package simulate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/latentree/latentree/model/gaussian"
)

// ScatterMatrix draws the centred scatter matrix S = Σ_r (x_r − x̄)(x_r − x̄)ᵀ
// of n independent rows of a zero-mean Gaussian vector with covariance
// sigma (p×p row-major, positive definite) without drawing the rows: S
// follows the Wishart distribution W_p(sigma, n−1), sampled by the Bartlett
// decomposition in O(p³) time whatever n. The sample covariance is S/(n−1)
// and sample correlations are S_ij/√(S_ii S_jj). This makes simulation
// studies at hundreds of thousands of samples cost no more than at a
// hundred. It needs n > p.
func ScatterMatrix(src rand.Source, sigma []float64, p, n int) ([]float64, error) {
	if src == nil {
		return nil, errNoSource
	}
	rng := rand.New(src)
	if len(sigma) != p*p {
		return nil, fmt.Errorf("simulate: covariance has %d entries, want %d×%d", len(sigma), p, p)
	}
	dof := n - 1
	if dof < p {
		return nil, fmt.Errorf("simulate: Bartlett sampling needs more samples (%d) than variables (%d)", n, p)
	}
	L, err := cholesky(sigma, p)
	if err != nil {
		return nil, err
	}
	// A lower triangular: A_ii = sqrt(χ²(dof − i)), A_ij ~ N(0,1) for i > j.
	A := make([]float64, p*p)
	for i := 0; i < p; i++ {
		A[i*p+i] = math.Sqrt(2 * gamma(rng, float64(dof-i)/2))
		for j := 0; j < i; j++ {
			A[i*p+j] = rng.NormFloat64()
		}
	}
	// B = L·A (lower triangular), S = B·Bᵀ.
	B := make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := j; k <= i; k++ {
				s += L[i*p+k] * A[k*p+j]
			}
			B[i*p+j] = s
		}
	}
	S := make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := 0; k <= j; k++ {
				s += B[i*p+k] * B[j*p+k]
			}
			S[i*p+j], S[j*p+i] = s, s
		}
	}
	return S, nil
}

// cholesky returns the lower-triangular L with L·Lᵀ = a.
func cholesky(a []float64, p int) ([]float64, error) {
	L := make([]float64, p*p)
	for j := 0; j < p; j++ {
		s := a[j*p+j]
		for k := 0; k < j; k++ {
			s -= L[j*p+k] * L[j*p+k]
		}
		if !(s > 0) {
			return nil, errors.New("simulate: covariance matrix is not positive definite")
		}
		L[j*p+j] = math.Sqrt(s)
		for i := j + 1; i < p; i++ {
			s := a[i*p+j]
			for k := 0; k < j; k++ {
				s -= L[i*p+k] * L[j*p+k]
			}
			L[i*p+j] = s / L[j*p+j]
		}
	}
	return L, nil
}

// SampleCorrelations returns the names of the observed variables of a
// Gaussian model and the sample correlation matrix (row-major) of n rows
// drawn from it, obtained through ScatterMatrix without drawing the rows.
func SampleCorrelations(src rand.Source, g *gaussian.Model, n int) ([]string, []float64, error) {
	if src == nil {
		return nil, nil, errNoSource
	}
	rng := rand.New(src)
	t := g.Tree
	obs := t.Observed()
	p := len(obs)
	sigma := make([]float64, p*p)
	for i, u := range obs {
		for j, v := range obs {
			sigma[i*p+j] = g.Cov(u, v)
		}
	}
	S, err := ScatterMatrix(rng, sigma, p, n)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, p)
	for i, v := range obs {
		names[i] = t.Name(v)
	}
	r := make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			r[i*p+j] = S[i*p+j] / math.Sqrt(S[i*p+i]*S[j*p+j])
		}
	}
	return names, r, nil
}
