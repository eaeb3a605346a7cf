package structure

import (
	"fmt"
	"math"
	"slices"

	"github.com/latentree/latentree/tree"
)

// Grouping selects how recursive grouping forms families of nodes.
type Grouping int

const (
	// GroupDefault is the zero value: the caller's default. For
	// structure.Learn it is GroupThreshold; the learn package, which
	// chooses defaults for users, takes GroupSilhouette.
	GroupDefault Grouping = iota
	// GroupThreshold puts nodes i and j in the same family when
	// Λ_ij < ε (Choi et al. 2011, eq. 26) and takes connected components.
	GroupThreshold
	// GroupSilhouette clusters nodes by k-medoids on the dissimilarity
	// Λ_ij, choosing the number of clusters by the average silhouette, as
	// in the experiments of Choi et al. (2011, §6.1).
	GroupSilhouette
)

// ParseGrouping returns the grouping with the given name: silhouette or
// threshold (GroupDefault has no name).
func ParseGrouping(s string) (Grouping, error) {
	switch s {
	case "silhouette":
		return GroupSilhouette, nil
	case "threshold":
		return GroupThreshold, nil
	}
	return GroupDefault, fmt.Errorf("structure: unknown grouping %q (want silhouette or threshold)", s)
}

// RGOptions configures recursive grouping.
type RGOptions struct {
	// Tau is the threshold τ of eq. 24: only distances below it are used
	// to test relationships. Zero means a default derived from Samples
	// (see DefaultTau), or +Inf when Samples is 0 (exact distances).
	Tau float64
	// Eps is the threshold ε of eq. 26 for family and parent tests. Zero
	// means a default derived from Samples (see DefaultEps), or a tight
	// tolerance for exact distances when Samples is 0.
	Eps float64
	// ParentEps is the threshold of the parent test (Lemma 4(i)): a
	// member p of a family is taken as the parent of the others when
	// |mean_k Φ_cpk − d_cp| < ParentEps for every other member c. If
	// instead the family's parent is a hidden node h, that deviation is
	// 2·d_ph, so the test merges into p every hidden parent closer to it
	// than ParentEps/2. Zero means the smaller of Eps and
	// 2·DefaultContract, which merges exactly the hidden nodes the
	// contraction of short edges would (Eps alone, 8/√n, merged hidden
	// nodes up to 0.4 away at n = 100: RG then found almost no hidden
	// variables on few rows).
	ParentEps float64
	// Samples is the number of samples the distances were estimated from
	// (0: the distances are exact).
	Samples int
	// Grouping selects the family test. With exact distances (Samples
	// and Eps zero) the threshold test is exact and always used.
	Grouping Grouping
	// Range uses the statistic of the paper, Λ_ij = max_k Φ_ijk −
	// min_k Φ_ijk (eq. 25). By default latentree uses the
	// inverse-variance weighted standard deviation of Φ_ijk over K_ij
	// (weights e^{−2 max(d_ik, d_jk)}, since the standard error of an
	// estimated distance grows like e^d), which a single noisy far node
	// cannot dominate; both are 0 for exact distances of siblings.
	Range bool
}

// DefaultTau returns the default τ for n samples and the chosen
// statistic. For the paper's range statistic (rangeStat) it is ½ log n +
// log ½, the distance at which the standard error of an estimated Gaussian
// distance −log|ρ̂|, about e^d/√n, reaches ½: it grows logarithmically with
// n as Choi et al. (2011, §7) prescribe. The weighted statistic already
// discounts far nodes, and does best with a wider set: ½ log n + 2. It is
// +Inf for n ≤ 0 (exact distances).
func DefaultTau(n int, rangeStat bool) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	if rangeStat {
		return math.Max(1, 0.5*math.Log(float64(n))+math.Log(0.5))
	}
	return 0.5*math.Log(float64(n)) + 2
}

// DefaultEps returns the default ε for n samples: 8/√n, about four
// standard errors of a difference Φ̂_ijk of two estimated distances of
// moderate length; 1e-7 for n ≤ 0 (exact distances, up to rounding).
func DefaultEps(n int) float64 {
	if n <= 0 {
		return 1e-7
	}
	return 8 / math.Sqrt(float64(n))
}

func (o RGOptions) params() (tau, eps float64) {
	tau, eps = o.Tau, o.Eps
	if tau <= 0 {
		tau = DefaultTau(o.Samples, o.Range)
	}
	if eps <= 0 {
		eps = DefaultEps(o.Samples)
	}
	return tau, eps
}

// rgState is the working state of one run of recursive grouping: a
// growing distance matrix over the input nodes and the hidden nodes it
// introduces.
type rgState struct {
	ed        edits // the first failed tree edit
	t         *tree.Tree
	node      []int     // local index → tree node
	d         []float64 // cap×cap row-major distances between local nodes
	cap       int
	children  [][]int // local index → local children (hidden nodes only)
	tau, eps  float64
	parentEps float64
	grouping  Grouping
	weighted  bool
	exact     bool      // exact distances: the threshold test is decisive
	e2        []float64 // e^{2d}+e^{−2d} for active pairs, refreshed every iteration
	added     int
}

func (s *rgState) at(i, j int) float64 { return s.d[i*s.cap+j] }
func (s *rgState) set(i, j int, v float64) {
	s.d[i*s.cap+j], s.d[j*s.cap+i] = v, v
}

// rg runs relaxed recursive grouping (Choi et al. 2011, §4 and §6.1) over
// the nodes ids of t, whose pairwise distances are d (len(ids)² row-major,
// finite), adding hidden nodes and edges to t. With exact distances (τ =
// +Inf, tiny ε) it is the exact RG of §4.
func rg(t *tree.Tree, ids []int, d []float64, opt RGOptions) (int, error) {
	n := len(ids)
	switch n {
	case 0, 1:
		return 0, nil
	case 2:
		var ed edits
		ed.check(t.AddEdge(ids[0], ids[1], math.Max(0, d[1])))
		return 0, ed.err
	}
	tau, eps := opt.params()
	peps := opt.ParentEps
	if peps <= 0 {
		peps = math.Min(eps, 2*DefaultContract)
	}
	s := &rgState{t: t, cap: 2 * n, tau: tau, eps: eps, parentEps: peps, grouping: opt.Grouping, weighted: !opt.Range, exact: opt.Samples <= 0 && opt.Eps <= 0}
	s.d = make([]float64, s.cap*s.cap)
	s.node = append(make([]int, 0, s.cap), ids...)
	s.children = make([][]int, n, s.cap)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s.d[i*s.cap+j] = d[i*n+j]
		}
	}
	active := make([]int, n)
	for i := range active {
		active[i] = i
	}
	for len(active) >= 3 {
		active = s.iterate(active)
	}
	if len(active) == 2 {
		a, b := active[0], active[1]
		s.ed.check(t.AddEdge(s.node[a], s.node[b], math.Max(0, s.at(a, b))))
	}
	return s.added, s.ed.err
}

// kset returns K_ij of eq. 24 among the active nodes.
func (s *rgState) kset(active []int, i, j int, buf []int) []int {
	buf = buf[:0]
	for _, k := range active {
		if k == i || k == j {
			continue
		}
		if s.at(i, k) < s.tau && s.at(j, k) < s.tau {
			buf = append(buf, k)
		}
	}
	return buf
}

// lambda returns Λ_ij (eq. 25) and the mean of Φ_ijk over K_ij; ok is
// false when the pair cannot be tested (d_ij ≥ τ or K_ij empty).
func (s *rgState) lambda(active []int, i, j int, buf []int) (lam, mean float64, ok bool) {
	if s.at(i, j) >= s.tau {
		return math.Inf(1), 0, false
	}
	K := s.kset(active, i, j, buf)
	if len(K) == 0 {
		return math.Inf(1), 0, false
	}
	if s.weighted {
		// Inverse-variance weights: the standard error of an estimated
		// distance d grows like e^d, so Φ_ijk = d_ik − d_jk has variance
		// about e^{2 max(d_ik, d_jk)}/n.
		sw, sum := 0.0, 0.0
		for _, k := range K {
			w := s.weight(i, j, k)
			sw += w
			sum += w * (s.at(i, k) - s.at(j, k))
		}
		mean := sum / sw
		v := 0.0
		for _, k := range K {
			w := s.weight(i, j, k)
			e := s.at(i, k) - s.at(j, k) - mean
			v += w * e * e
		}
		return math.Sqrt(v / sw), mean, true
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, k := range K {
		phi := s.at(i, k) - s.at(j, k)
		lo, hi = math.Min(lo, phi), math.Max(hi, phi)
		sum += phi
	}
	return hi - lo, sum / float64(len(K)), true
}

// iterate performs one round of grouping and returns the new active set.
func (s *rgState) iterate(active []int) []int {
	m := len(active)
	if s.weighted {
		if s.e2 == nil {
			s.e2 = make([]float64, s.cap*s.cap)
		}
		for _, i := range active {
			for _, j := range active {
				d := s.at(i, j)
				s.e2[i*s.cap+j] = math.Exp(2*d) + math.Exp(-2*d)
			}
		}
	}
	lam := make([]float64, m*m)
	meanPhi := make([]float64, m*m) // meanPhi[a*m+b] = mean_k Φ_{ab k}
	testable := make([]bool, m*m)
	var buf []int
	for a := 0; a < m; a++ {
		for b := a + 1; b < m; b++ {
			l, mp, ok := s.lambda(active, active[a], active[b], buf)
			lam[a*m+b], lam[b*m+a] = l, l
			meanPhi[a*m+b], meanPhi[b*m+a] = mp, -mp
			testable[a*m+b], testable[b*m+a] = ok, ok
		}
	}
	var families [][]int // positions in active
	switch {
	case s.grouping == GroupSilhouette && !s.exact:
		// Silhouettes need two clusters at least: when every pair passes
		// the threshold test, all nodes form one family.
		all := true
		for k, l := range lam {
			if k/m != k%m && !(testable[k] && l < s.eps) {
				all = false
				break
			}
		}
		if all {
			families = [][]int{make([]int, m)}
			for a := range families[0] {
				families[0][a] = a
			}
		} else {
			families = mergeGroups(silhouetteGroups(m, lam, testable), m, lam, testable, s.eps)
		}
	default:
		families = thresholdGroups(m, lam, testable, s.eps)
	}
	progress := false
	for _, f := range families {
		if len(f) > 1 {
			progress = true
			break
		}
	}
	if !progress {
		// No family passes the test (noisy distances): join the pair
		// that looks most like siblings so that the recursion advances.
		ba, bb, best := -1, -1, math.Inf(1)
		for a := 0; a < m; a++ {
			for b := a + 1; b < m; b++ {
				key := lam[a*m+b]
				if !testable[a*m+b] {
					key = math.Inf(1)
				}
				if ba < 0 || key < best || (key == best && s.at(active[a], active[b]) < s.at(active[ba], active[bb])) {
					ba, bb, best = a, b, key
				}
			}
		}
		families = families[:0]
		for a := 0; a < m; a++ {
			switch a {
			case ba:
				families = append(families, []int{ba, bb})
			case bb:
			default:
				families = append(families, []int{a})
			}
		}
	}
	var next, newHidden []int
	for _, f := range families {
		if len(f) == 1 {
			next = append(next, active[f[0]])
			continue
		}
		if p := s.parent(f, active, m, meanPhi); p >= 0 {
			u := active[p]
			for _, c := range f {
				if c != p {
					v := active[c]
					s.ed.check(s.t.AddEdge(s.node[v], s.node[u], math.Max(0, s.at(v, u))))
				}
			}
			next = append(next, u)
			continue
		}
		h := s.addHidden(f, active, m, meanPhi)
		next = append(next, h)
		newHidden = append(newHidden, h)
	}
	// Distances from new hidden nodes to the other new active nodes
	// (eq. 28).
	isNew := make(map[int]bool, len(newHidden))
	for _, h := range newHidden {
		isNew[h] = true
	}
	for x, h := range newHidden {
		for _, l := range next {
			if l == h || (isNew[l] && slices.Index(newHidden, l) < x) {
				continue
			}
			s.set(h, l, math.Max(0, s.hiddenDistance(h, l, isNew[l])))
		}
	}
	slices.Sort(next)
	return next
}

// parent returns the position (within active) of the member of family f
// that is the parent of all the others, or −1. Node u is the parent of a
// leaf i when Φ_iuk = d_iu for all k (Lemma 4(i)); the relaxed test
// compares the mean of Φ̂_iuk with d̂_iu within ε.
func (s *rgState) parent(f []int, active []int, m int, meanPhi []float64) int {
	best, bestScore := -1, math.Inf(1)
	for _, p := range f {
		score := 0.0
		for _, c := range f {
			if c == p {
				continue
			}
			dev := math.Abs(meanPhi[c*m+p] - s.at(active[c], active[p]))
			score = math.Max(score, dev)
		}
		if score < bestScore {
			best, bestScore = p, score
		}
	}
	if bestScore < s.parentEps {
		return best
	}
	return -1
}

// addHidden introduces a hidden parent of the family f and returns its
// local index; distances to its children follow eq. 27.
func (s *rgState) addHidden(f []int, active []int, m int, meanPhi []float64) int {
	h := len(s.node)
	s.node = append(s.node, s.t.AddHidden())
	s.added++
	kids := make([]int, len(f))
	for x, c := range f {
		kids[x] = active[c]
	}
	s.children = append(s.children, kids)
	for _, a := range f {
		i := active[a]
		sum, cnt := 0.0, 0
		for _, b := range f {
			if a == b {
				continue
			}
			j := active[b]
			mp := meanPhi[a*m+b]
			if s.at(i, j) >= s.tau {
				continue
			}
			sum += s.at(i, j) + mp
			cnt++
		}
		var dih float64
		if cnt > 0 {
			dih = sum / (2 * float64(cnt))
		} else {
			// No usable pair: split the distance to the nearest sibling.
			near := math.Inf(1)
			for _, b := range f {
				if a != b {
					near = math.Min(near, s.at(i, active[b]))
				}
			}
			dih = near / 2
		}
		dih = math.Max(0, dih)
		s.set(i, h, dih)
		s.ed.check(s.t.AddEdge(s.node[i], s.node[h], dih))
	}
	return h
}

// hiddenDistance estimates the distance between a new hidden node h and
// another active node l by eq. 28: averaging over h's children (and over
// l's children when l is new too).
func (s *rgState) hiddenDistance(h, l int, lNew bool) float64 {
	// With the weighted statistic, terms are weighted by the inverse of
	// their approximate variance, e^{−2d} for the longest distance used.
	weight := func(d float64) float64 {
		if !s.weighted {
			return 1
		}
		return math.Exp(-2 * d)
	}
	sum, sw := 0.0, 0.0
	if !lNew {
		for _, i := range s.children[h] {
			w := weight(s.at(i, l))
			sum += w * (s.at(i, l) - s.at(i, h))
			sw += w
		}
	} else {
		for _, i := range s.children[h] {
			for _, j := range s.children[l] {
				w := weight(s.at(i, j))
				sum += w * (s.at(i, j) - s.at(i, h) - s.at(j, l))
				sw += w
			}
		}
	}
	return sum / sw
}

// thresholdGroups forms families as connected components of the graph
// with an edge between a and b when Λ_ab < eps.
func thresholdGroups(m int, lam []float64, ok []bool, eps float64) [][]int {
	comp := make([]int, m)
	for i := range comp {
		comp[i] = i
	}
	find := func(x int) int {
		for comp[x] != x {
			comp[x] = comp[comp[x]]
			x = comp[x]
		}
		return x
	}
	for a := 0; a < m; a++ {
		for b := a + 1; b < m; b++ {
			if ok[a*m+b] && lam[a*m+b] < eps {
				ra, rb := find(a), find(b)
				if ra != rb {
					comp[max(ra, rb)] = min(ra, rb)
				}
			}
		}
	}
	idx := map[int]int{}
	var out [][]int
	for a := 0; a < m; a++ {
		r := find(a)
		k, seen := idx[r]
		if !seen {
			k = len(out)
			idx[r] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], a)
	}
	return out
}

// mergeGroups joins, closest first, families whose average statistic
// between members of the two is below limit: k-medoids with the
// silhouette criterion tends to split a large family of siblings whose
// weakest members are noisy into two clusters.
func mergeGroups(groups [][]int, m int, lam []float64, ok []bool, limit float64) [][]int {
	avg := func(a, b []int) float64 {
		s := 0.0
		for _, x := range a {
			for _, y := range b {
				if !ok[x*m+y] {
					return math.Inf(1)
				}
				s += lam[x*m+y]
			}
		}
		return s / float64(len(a)*len(b))
	}
	for {
		bi, bj, best := -1, -1, limit
		for i := range groups {
			for j := i + 1; j < len(groups); j++ {
				if len(groups[i]) < 2 && len(groups[j]) < 2 {
					continue
				}
				if v := avg(groups[i], groups[j]); v < best {
					bi, bj, best = i, j, v
				}
			}
		}
		if bi < 0 {
			return groups
		}
		groups[bi] = append(groups[bi], groups[bj]...)
		groups = append(groups[:bj], groups[bj+1:]...)
	}
}

// weight returns the inverse of the approximate variance of Φ̂_ijk =
// d̂_ik − d̂_jk, since an estimated Gaussian distance d has variance about
// (e^{2d} − 2 + e^{−2d})/n; it reads the per-iteration cache of
// e^{2d} + e^{−2d}.
func (s *rgState) weight(i, j, k int) float64 {
	v := s.e2[i*s.cap+k] + s.e2[j*s.cap+k] - 4
	return 1 / math.Max(v, 1e-3)
}
