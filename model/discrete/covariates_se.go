package discrete

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/model"
)

// addRowAny adds row r's information to s.info: addRow's, or with a root
// regression addRow's in the row's own root logits (against state 0,
// under the row's prior) carried to the coefficients (regressionRow).
func (ps *paramSet) addRowAny(s *rowState, b *binding, r int) error {
	if !ps.reg {
		return ps.addRow(s, b, r)
	}
	return ps.regressionRow(s, b, r)
}

// regressionRow adds row r's information under a root regression. The
// root's logits in row r are its linear predictors, η_c = β_c·x_r, so the
// complete-data score of β_cj is x_rj times that of η_c and the complete
// information of the coefficients is that of the logits times x_r x_rᵀ:
// the row's Louis information I_r in (η, CPT logits), computed by addRow
// with the row's prior, becomes Jᵀ I_r J with J = ∂(η, CPT)/∂(β, CPT).
func (ps *paramSet) regressionRow(s *rowState, b *binding, r int) error {
	k := ps.m.States[ps.m.Root]
	p := ps.ncol
	s.rootTheta = b.rootPrior[r*k : (r+1)*k]
	s.bp.prior = s.rootTheta
	info := s.info
	s.info = s.row
	clear(s.row)
	err := ps.addRow(s, b, r)
	s.info = info
	if err != nil {
		return err
	}
	x := b.design[r*p : (r+1)*p]
	P0, F := ps.n, ps.full
	nr := k - 1 // the root's logits come first (the root is first in order)
	nb := nr * p
	if s.meat != nil {
		// The row's score in (β, CPT logits): x_j times that of η_c for
		// β_cj, the CPTs' as they are.
		g := s.score[:F]
		for i, e := range s.es {
			if i < nr {
				for j, xj := range x {
					g[i*p+j] = e * xj
				}
			} else {
				g[nb+i-nr] = e
			}
		}
		w := b.w(r)
		addOuter(s.meat, g, w*w)
	}
	// index maps a row parameter and a design column to the full one.
	for i := 0; i < P0; i++ {
		ri := s.row[i*P0 : (i+1)*P0]
		for j := 0; j < P0; j++ {
			v := ri[j]
			if v == 0 {
				continue
			}
			switch {
			case i < nr && j < nr:
				for a, xa := range x {
					row := info[(i*p+a)*F:]
					for c, xc := range x {
						row[j*p+c] += v * xa * xc
					}
				}
			case i < nr:
				for a, xa := range x {
					info[(i*p+a)*F+nb+j-nr] += v * xa
				}
			case j < nr:
				for c, xc := range x {
					info[(nb+i-nr)*F+j*p+c] += v * xc
				}
			default:
				info[(nb+i-nr)*F+nb+j-nr] += v
			}
		}
	}
	return nil
}

// regressionSE is StandardErrors for a model with a root regression: the
// observed information in the coefficients and the CPTs' logits by
// Louis's identity, row by row (regressionRow), inverted. The
// coefficients' standard errors are StdErrors.Beta; the CPTs' are
// carried to their probabilities by the delta method as without
// covariates, and the prior's (the mean of the rows' priors, Prior) from
// the coefficients'.
func (m *Model) regressionSE(b *binding, opt SEOptions, sandwich bool) (*StdErrors, error) {
	ps := newParamSet(m)
	reg := m.Regression
	k := m.States[m.Root]
	p := 1 + reg.NumTerms()
	ps.reg, ps.ncol = true, p
	nb := (k - 1) * p
	ps.full = nb + ps.n - (k - 1)
	ps.sandwich = sandwich
	info, meat, err := ps.information(b, model.Workers(opt.Workers))
	if err != nil {
		return nil, err
	}
	F := ps.full
	sym := mat.NewSymDense(max(F, 1), nil)
	if F == 0 {
		sym = mat.NewSymDense(1, []float64{1})
	}
	for i := 0; i < F; i++ {
		for j := i; j < F; j++ {
			x := (info[i*F+j] + info[j*F+i]) / 2
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("model: the observed information is not finite (%g)", x)
			}
			sym.SetSym(i, j, x)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		for i := 0; i < nb; i++ {
			if !(sym.At(i, i) > 0) {
				return nil, fmt.Errorf("model: the observed information is singular at the root regression's coefficient of %q for state %d: the data do not determine it (no standard errors)", reg.Terms()[i%p], i/p+1)
			}
		}
		return nil, errors.New("model: the observed information is not positive definite: the model with covariates is not locally identified at these parameters (no standard errors)")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("model: inverting the observed information: %w", err)
	}
	cov := &inv
	if sandwich {
		cov = sandwichCov(cov, meat)
	}
	// The CPTs' logits' covariance in the layout of ps (the root's
	// entries 0: its standard errors are set below).
	sub := mat.NewSymDense(max(ps.n, 1), nil)
	for i := k - 1; i < ps.n; i++ {
		for j := i; j < ps.n; j++ {
			sub.SetSym(i, j, cov.At(nb+i-(k-1), nb+j-(k-1)))
		}
	}
	se := ps.delta(sub)
	if sandwich {
		se.Method = SESandwich
	}
	se.Beta = make([]float64, len(reg.Beta))
	for i := 0; i < nb; i++ {
		se.Beta[p+i] = math.Sqrt(math.Max(cov.At(i, i), 0))
	}
	// The mean prior p̄_c = Σ_r w_r π_rc / W: ∂p̄_c/∂β_dj = Σ_r w_r
	// π_rc (δ_cd − π_rd) x_rj / W.
	grad := make([]float64, nb)
	se.Prior = make([]float64, k)
	for c := 0; c < k; c++ {
		clear(grad)
		tot := 0.0
		for r := 0; r < b.rows; r++ {
			w := b.w(r)
			tot += w
			pi := b.rootPrior[r*k : (r+1)*k]
			x := b.design[r*p : (r+1)*p]
			for d := 1; d < k; d++ {
				g := w * pi[c] * (kron(c, d) - pi[d])
				for j, xj := range x {
					grad[(d-1)*p+j] += g * xj
				}
			}
		}
		v := 0.0
		for i := 0; i < nb; i++ {
			for j := 0; j < nb; j++ {
				v += grad[i] * grad[j] * cov.At(i, j)
			}
		}
		se.Prior[c] = math.Sqrt(math.Max(v, 0)) / tot
	}
	return se, nil
}
