package spectral

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
)

// specData is a dataset bound to a network: per tree node, the codes of an
// observed variable in the model's states (data.Missing where missing),
// and optional row weights.
type specData struct {
	cols   [][]uint16
	weight []float64
	rows   int
	// exact, if set, gives exact joint tables instead of counts (tests of
	// population behaviour at sizes where rows cannot be enumerated).
	exact func(nodes []int) ([]float64, error)
}

func (d *specData) w(r int) float64 {
	if d.weight == nil {
		return 1
	}
	return d.weight[r]
}

// complete returns the rows in which every given node is observed (nil:
// all rows), and their total weight.
func (d *specData) complete(nodes []int) ([]int, float64) {
	missing := false
	for _, v := range nodes {
		for _, c := range d.cols[v] {
			if c == data.Missing {
				missing = true
				break
			}
		}
	}
	if !missing {
		tot := float64(d.rows)
		if d.weight != nil {
			tot = 0
			for _, w := range d.weight {
				tot += w
			}
		}
		return nil, tot
	}
	var rows []int
	tot := 0.0
	for r := 0; r < d.rows; r++ {
		ok := true
		for _, v := range nodes {
			if d.cols[v][r] == data.Missing {
				ok = false
				break
			}
		}
		if ok {
			rows = append(rows, r)
			tot += d.w(r)
		}
	}
	if rows == nil {
		rows = []int{}
	}
	return rows, tot
}

// forRows calls fn for each row in rows (nil: every row).
func (d *specData) forRows(rows []int, fn func(r int)) {
	if rows == nil {
		for r := 0; r < d.rows; r++ {
			fn(r)
		}
		return
	}
	for _, r := range rows {
		fn(r)
	}
}

// jointTable returns the empirical joint distribution of the given nodes
// (row-major, first node slowest) over the rows where all are observed.
func (d *specData) jointTable(nodes []int, states []int, t treeNamer) ([]float64, error) {
	shape := make([]int, len(nodes))
	for i, v := range nodes {
		shape[i] = states[v]
	}
	if d.exact != nil {
		return d.exact(nodes)
	}
	tab := make([]float64, cellCount(shape))
	rows, tot := d.complete(nodes)
	if !(tot > 0) {
		return nil, fmt.Errorf("model: no row has all of %s observed (with positive weight); spectral parameters need their joint table", t.names(nodes))
	}
	d.forRows(rows, func(r int) {
		idx := 0
		for i, v := range nodes {
			idx = idx*shape[i] + int(d.cols[v][r])
		}
		tab[idx] += d.w(r)
	})
	for i := range tab {
		tab[i] /= tot
	}
	return tab, nil
}

// treeNamer names tree nodes in errors and reports.
type treeNamer interface {
	name(int) string
	names([]int) string
}

// estimate fills every factor's table and linker from the data.
func (net *specNet) estimate(d *specData, opt Options, tn treeNamer) error {
	tol := opt.Tol
	nf := len(net.factors)
	errs := make([]error, nf)
	var wg sync.WaitGroup
	next := make(chan int, nf)
	for _, f := range net.order {
		next <- f
	}
	close(next)
	for w := 0; w < min(model.Workers(opt.Workers), nf); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range next {
				errs[f] = net.estimateFactor(f, d, opt.Linker, tol, tn)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (net *specNet) estimateFactor(f int, d *specData, linker model.Linker, tol float64, tn treeNamer) error {
	fac := &net.factors[f]
	reps := make([]int, len(fac.modes))
	for i, m := range fac.modes {
		reps[i] = m.rep
	}
	tab, err := d.jointTable(reps, net.states, tn)
	if err != nil {
		return err
	}
	fac.table = tab
	if fac.parent < 0 {
		return nil
	}
	p := &net.factors[fac.parent]
	a := fac.modes[0].rep
	b := p.modes[net.childMode(fac.parent, f)].rep
	na, nb := net.states[a], net.states[b]
	rank := min(fac.rank, p.rank)
	fac.edge.A, fac.edge.B = tn.name(a), tn.name(b)
	pab, err := d.jointTable([]int{a, b}, net.states, tn)
	if err != nil {
		return err
	}
	fac.pair = pab
	var m []float64
	switch linker {
	case model.LinkerParikh:
		m, err = parikhLinker(pab, na, nb, rank, tol, &fac.edge)
	default:
		s1, s2 := net.localSides(f)
		if linker == model.LinkerMStarFull {
			s1, s2 = net.fullSides(f)
		}
		m, err = mstarLinker(d, net.states, s1, s2, a, b, rank, tol, &fac.edge, tn)
	}
	if err != nil {
		return fmt.Errorf("model: linker of edge %s–%s: %w", fac.edge.Parent, fac.edge.Child, err)
	}
	fac.linker = m
	return nil
}

// localSides returns the local unfolding around the edge from factor f to
// its parent: the representatives of the parent's other modes and of f's
// other modes.
func (net *specNet) localSides(f int) (s1, s2 []int) {
	fac := &net.factors[f]
	p := &net.factors[fac.parent]
	for _, m := range p.modes {
		if m.kind == modeChild && m.child == f {
			continue
		}
		s1 = append(s1, m.rep)
	}
	for _, m := range fac.modes[1:] {
		s2 = append(s2, m.rep)
	}
	return s1, s2
}

// subtreeObserved appends the observed nodes of factor f's subtree.
func (net *specNet) subtreeObserved(dst []int, f int) []int {
	for _, m := range net.factors[f].modes {
		switch m.kind {
		case modeLeaf:
			dst = append(dst, m.rep)
		case modeChild:
			dst = net.subtreeObserved(dst, m.child)
		}
	}
	return dst
}

// fullSides returns the unfolding of Algorithm 1's current sub-tensor when
// edges are cut top-down and each factor's child edges in mode order: on
// f's side every observed node below f; on the parent's side the parent's
// own representative towards its parent, its leaves, the representatives
// of earlier siblings (already cut off) and every observed node below
// later siblings.
func (net *specNet) fullSides(f int) (s1, s2 []int) {
	fac := &net.factors[f]
	p := &net.factors[fac.parent]
	before := true
	for _, m := range p.modes {
		switch {
		case m.kind == modeChild && m.child == f:
			before = false
		case m.kind == modeChild && !before:
			s1 = net.subtreeObserved(s1, m.child)
		default:
			s1 = append(s1, m.rep)
		}
	}
	s2 = net.subtreeObserved(nil, f)
	return s1, s2
}

// cutRank returns how many of the singular values s (largest first) are
// above tol times the largest.
func cutRank(s []float64, tol float64) int {
	r := 0
	for _, x := range s {
		if len(s) > 0 && x > tol*s[0] && x > 0 {
			r++
		}
	}
	return r
}

// parikhLinker is the rank-r pseudo-inverse of the pair table:
// M = V_r Σ_r⁻¹ U_rᵀ, nb×na.
func parikhLinker(pab []float64, na, nb, rank int, tol float64, e *EdgeSpectrum) ([]float64, error) {
	u, s, v, err := factorSVD(mat.NewDense(na, nb, append([]float64(nil), pab...)))
	if err != nil {
		return nil, err
	}
	r := min(rank, cutRank(s, tol))
	e.Singular, e.Rank, e.Cut = s, r, min(rank, len(s))-r
	if r == 0 {
		return nil, errors.New("the pair table of its representatives is zero")
	}
	return truncatedPinv(u, s, v, r), nil
}

// factorSVD returns the thin SVD a = U Σ Vᵀ as U, the singular values
// and V.
func factorSVD(a mat.Matrix) (*mat.Dense, []float64, *mat.Dense, error) {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return nil, nil, nil, errors.New("SVD failed")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	return &u, svd.Values(nil), &v, nil
}

// truncatedPinv returns V_r Σ_r⁻¹ U_rᵀ, the pseudo-inverse of U Σ Vᵀ
// keeping r singular values, row-major (rows of V × rows of U).
func truncatedPinv(u *mat.Dense, s []float64, v *mat.Dense, r int) []float64 {
	rows, _ := u.Dims()
	cols, _ := v.Dims()
	m := make([]float64, cols*rows)
	for i := 0; i < cols; i++ {
		for j := 0; j < rows; j++ {
			x := 0.0
			for c := 0; c < r; c++ {
				x += v.At(i, c) / s[c] * u.At(j, c)
			}
			m[i*rows+j] = x
		}
	}
	return m
}

// keyer numbers the distinct configurations of a set of nodes.
type keyer struct {
	nodes  []int
	states []int
	small  bool
	ids    map[uint64]int
	sids   map[string]int
	buf    []byte
}

func newKeyer(nodes, states []int) *keyer {
	k := &keyer{nodes: nodes, states: states, small: true}
	prod := 1.0
	for _, v := range nodes {
		prod *= float64(states[v])
	}
	if prod > 1<<62 {
		k.small = false
		k.sids = map[string]int{}
	} else {
		k.ids = map[uint64]int{}
	}
	return k
}

func (k *keyer) id(cols [][]uint16, r int) int {
	if k.small {
		var key uint64
		for _, v := range k.nodes {
			key = key*uint64(k.states[v]) + uint64(cols[v][r])
		}
		id, ok := k.ids[key]
		if !ok {
			id = len(k.ids)
			k.ids[key] = id
		}
		return id
	}
	k.buf = k.buf[:0]
	for _, v := range k.nodes {
		c := cols[v][r]
		k.buf = append(k.buf, byte(c), byte(c>>8))
	}
	id, ok := k.sids[string(k.buf)]
	if !ok {
		id = len(k.sids)
		k.sids[string(k.buf)] = id
	}
	return id
}

// mstarLinker computes M* (Song et al. eqs. 5–6) of the unfolding
// P = P̂_{S1;S2} with linkers a ∈ S1 and b ∈ S2 over the distinct
// configurations of S1 and S2 that occur (§5.2):
//
//	M* = V_B Σ_B⁻¹ (U_Bᵀ P V_A)_(r) Σ_A⁻¹ U_Aᵀ
//
// with PB = P_{S1;b} = U_B Σ_B V_Bᵀ and AᵀP = P_{a;S2} = U_A Σ_A V_Aᵀ
// (thin SVDs, singular values below tol relative cut).
func mstarLinker(d *specData, states, s1, s2 []int, a, b, rank int, tol float64, e *EdgeSpectrum, tn treeNamer) ([]float64, error) {
	na, nb := states[a], states[b]
	var u unfolding
	var err error
	if configs(s1, states)*configs(s2, states) <= 1<<16 {
		// Few configurations (the local unfolding): the dense joint table.
		u, err = denseUnfolding(d, states, s1, s2, a, b, tn)
	} else {
		u, err = rowUnfolding(d, states, s1, s2, a, b)
	}
	if err != nil {
		return nil, err
	}
	pbRows, apRows, cells, mass := u.pbRows, u.apRows, u.cells, u.mass
	ub, sb, vb, err := thinSVD(pbRows, nb)
	if err != nil {
		return nil, err
	}
	ua, sa, va, err := thinSVD(apRows, na) // (AᵀP)ᵀ = ua Σ vaᵀ: U_A = va, V_A = ua
	if err != nil {
		return nil, err
	}
	rb, ra := cutRank(sb, tol), cutRank(sa, tol)
	if rb == 0 || ra == 0 {
		return nil, errors.New("the unfolding is zero")
	}
	// C = U_Bᵀ P V_A, rb×ra.
	c := mat.NewDense(rb, ra, nil)
	for id, ij := range cells {
		w := mass[id]
		for x := 0; x < rb; x++ {
			bx := ub.At(ij.r, x) * w
			if bx == 0 {
				continue
			}
			for y := 0; y < ra; y++ {
				c.Set(x, y, c.At(x, y)+bx*ua.At(ij.c, y))
			}
		}
	}
	cu, sc, cv, err := factorSVD(c)
	if err != nil {
		return nil, err
	}
	r := min(rank, cutRank(sc, tol))
	e.Singular, e.Rank = sc, r
	e.Cut = (nb - rb) + (na - ra) + (min(rank, len(sc)) - r)
	if r == 0 {
		return nil, errors.New("the projected unfolding is zero")
	}
	// M = V_B Σ_B⁻¹ Cu_r Σc_r Cv_rᵀ Σ_A⁻¹ U_Aᵀ, with U_A = va.
	left := mat.NewDense(nb, r, nil) // V_B Σ_B⁻¹ Cu_r Σc_r
	for i := 0; i < nb; i++ {
		for q := 0; q < r; q++ {
			x := 0.0
			for p := 0; p < rb; p++ {
				x += vb.At(i, p) / sb[p] * cu.At(p, q)
			}
			left.Set(i, q, x*sc[q])
		}
	}
	right := mat.NewDense(r, na, nil) // Cv_rᵀ Σ_A⁻¹ U_Aᵀ
	for q := 0; q < r; q++ {
		for j := 0; j < na; j++ {
			x := 0.0
			for p := 0; p < ra; p++ {
				x += cv.At(p, q) / sa[p] * va.At(j, p)
			}
			right.Set(q, j, x)
		}
	}
	var m mat.Dense
	m.Mul(left, right)
	return append([]float64(nil), m.RawMatrix().Data...), nil
}

// unfolding is the unfolding P = P̂_{S1;S2} of mstarLinker over the
// configurations of S1 and S2 that occur: pbRows are the rows of
// P_{S1;b}, apRows those of (P_{a;S2})ᵀ, and the joint's non-zero cells
// (row and column configuration) with their mass, in order of first
// occurrence (deterministic sums).
type unfolding struct {
	pbRows, apRows [][]float64
	cells          []unfoldCell
	mass           []float64
}

type unfoldCell struct{ r, c int }

// denseUnfolding builds the unfolding from the dense joint table of
// S1 ∪ S2 (few configurations).
func denseUnfolding(d *specData, states, s1, s2 []int, a, b int, tn treeNamer) (unfolding, error) {
	var u unfolding
	na, nb := states[a], states[b]
	r1, r2 := configs(s1, states), configs(s2, states)
	joint, err := d.jointTable(append(append([]int(nil), s1...), s2...), states, tn)
	if err != nil {
		return u, err
	}
	pb, ap := make([]float64, r1*nb), make([]float64, r2*na)
	ia, ib := slices.Index(s1, a), slices.Index(s2, b)
	if ia < 0 || ib < 0 {
		return u, errors.New("internal error: a linker is not in its side of the unfolding")
	}
	sa, sb := 1, 1 // strides of a in S1's and b in S2's configurations
	for _, v := range s1[ia+1:] {
		sa *= states[v]
	}
	for _, v := range s2[ib+1:] {
		sb *= states[v]
	}
	for i := 0; i < r1; i++ {
		xa := i / sa % na
		for j := 0; j < r2; j++ {
			w := joint[i*r2+j]
			pb[i*nb+j/sb%nb] += w
			ap[j*na+xa] += w
		}
	}
	// Keep the configurations that occur.
	id1, id2 := make([]int, r1), make([]int, r2)
	for i := 0; i < r1; i++ {
		id1[i] = -1
		if row := pb[i*nb : (i+1)*nb]; slices.ContainsFunc(row, func(x float64) bool { return x != 0 }) {
			id1[i] = len(u.pbRows)
			u.pbRows = append(u.pbRows, row)
		}
	}
	for j := 0; j < r2; j++ {
		id2[j] = -1
		if row := ap[j*na : (j+1)*na]; slices.ContainsFunc(row, func(x float64) bool { return x != 0 }) {
			id2[j] = len(u.apRows)
			u.apRows = append(u.apRows, row)
		}
	}
	for i := 0; i < r1; i++ {
		for j := 0; j < r2; j++ {
			if w := joint[i*r2+j]; w != 0 {
				u.cells = append(u.cells, unfoldCell{id1[i], id2[j]})
				u.mass = append(u.mass, w)
			}
		}
	}
	return u, nil
}

// rowUnfolding builds the unfolding from the data rows in which every
// variable of S1 ∪ S2 is observed (too many configurations for a dense
// table).
func rowUnfolding(d *specData, states, s1, s2 []int, a, b int) (unfolding, error) {
	var u unfolding
	na, nb := states[a], states[b]
	if d.exact != nil {
		return u, errors.New("the literal M* needs data rows")
	}
	rows, tot := d.complete(append(append([]int(nil), s1...), s2...))
	if !(tot > 0) {
		return u, errors.New("no row has all of the unfolding's variables observed")
	}
	k1, k2 := newKeyer(s1, states), newKeyer(s2, states)
	cellID := map[unfoldCell]int{}
	d.forRows(rows, func(r int) {
		i, j := k1.id(d.cols, r), k2.id(d.cols, r)
		if i == len(u.pbRows) {
			u.pbRows = append(u.pbRows, make([]float64, nb))
		}
		if j == len(u.apRows) {
			u.apRows = append(u.apRows, make([]float64, na))
		}
		w := d.w(r) / tot
		u.pbRows[i][d.cols[b][r]] += w
		u.apRows[j][d.cols[a][r]] += w
		id, ok := cellID[unfoldCell{i, j}]
		if !ok {
			id = len(u.cells)
			cellID[unfoldCell{i, j}] = id
			u.cells = append(u.cells, unfoldCell{i, j})
			u.mass = append(u.mass, 0)
		}
		u.mass[id] += w
	})
	return u, nil
}

// configs returns the number of configurations of the nodes (capped).
func configs(nodes, states []int) int {
	c := 1
	for _, v := range nodes {
		c *= states[v]
		if c > 1<<30 {
			return 1 << 30
		}
	}
	return c
}

// thinSVD factorises the rows×n matrix given by its rows: U (rows×n), the
// singular values and V (n×n).
func thinSVD(rows [][]float64, n int) (*mat.Dense, []float64, *mat.Dense, error) {
	x := mat.NewDense(len(rows), n, nil)
	for i, row := range rows {
		x.SetRow(i, row)
	}
	u, s, v, err := factorSVD(x)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, y := range s {
		if math.IsNaN(y) {
			return nil, nil, nil, errors.New("SVD failed (NaN)")
		}
	}
	return u, s, v, nil
}

// fold contracts every factor's linker into mode 0 of its table.
func (net *specNet) fold() {
	for f := range net.factors {
		fac := &net.factors[f]
		if fac.parent < 0 {
			fac.folded = fac.table
			continue
		}
		na := fac.shape[0]
		rest := len(fac.table) / na
		nb := len(fac.linker) / na
		out := make([]float64, nb*rest)
		for i := 0; i < nb; i++ {
			for j := 0; j < na; j++ {
				m := fac.linker[i*na+j]
				if m == 0 {
					continue
				}
				src := fac.table[j*rest : (j+1)*rest]
				dst := out[i*rest : (i+1)*rest]
				for x, t := range src {
					dst[x] += m * t
				}
			}
		}
		fac.folded = out
	}
}
