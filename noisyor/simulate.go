package noisyor

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/latentree/latentree/internal/seed"
)

// ImageShapes are the names of the sources of ImageNetwork, in order.
var ImageShapes = []string{"diagonal", "top-bar", "cross", "block", "frame", "bottom-bar", "letter-L", "anti-diagonal"}

// ImageNetwork returns the stand-in for the synthetic image network of
// Šingliar & Hauskrecht (2006) used in Fig. 3 of Jernite et al. (2013): 8
// sources over an 8×8 grid of pixels named "p<row>_<col>" ("p0_0" ..
// "p7_7", row-major), every prior 0.25, every failure 0.1, every leak
// 0.001. The paper draws the sources' pixels only in its figure, so the
// shapes are ours (see ImageShapes; rows and columns count from 0 at the
// top left):
//
//	diagonal       (i, i)                                 8 pixels
//	top-bar        rows 0–1                              16
//	cross          row 3 and column 3                     15
//	block          rows 2–5 × columns 2–5                16
//	frame          border of rows 1–6 × columns 1–6,     16
//	               corners left out
//	bottom-bar     rows 6–7                              16
//	letter-L       column 0 and row 7, columns 1–4       12
//	anti-diagonal  (i, 7−i)                               8
//
// As in the paper, the network is quartet-learnable and the first and last
// sources need one subtraction: every pixel of a diagonal is also in the
// top bar, the block or the bottom bar, so any four of them hold two
// children of one of those (QuartetDepths gives 1 for the diagonals and 0
// for the other six).
func ImageNetwork() *Network {
	const side = 8
	n := &Network{Effects: make([]string, 0, side*side), Leak: make([]float64, side*side)}
	for r := range side {
		for c := range side {
			n.Effects = append(n.Effects, fmt.Sprintf("p%d_%d", r, c))
		}
	}
	for a := range n.Leak {
		n.Leak[a] = 0.001
	}
	in := map[string]func(r, c int) bool{
		"diagonal": func(r, c int) bool { return r == c },
		"top-bar":  func(r, c int) bool { return r <= 1 },
		"cross":    func(r, c int) bool { return r == 3 || c == 3 },
		"block":    func(r, c int) bool { return r >= 2 && r <= 5 && c >= 2 && c <= 5 },
		"frame": func(r, c int) bool {
			return (r == 1 || r == 6) != (c == 1 || c == 6) && r >= 1 && r <= 6 && c >= 1 && c <= 6
		},
		"bottom-bar":    func(r, c int) bool { return r >= 6 },
		"letter-L":      func(r, c int) bool { return c == 0 || (r == 7 && c <= 4) },
		"anti-diagonal": func(r, c int) bool { return r+c == side-1 },
	}
	for _, name := range ImageShapes {
		s := Source{Name: name, Prior: 0.25}
		for r := range side {
			for c := range side {
				if in[name](r, c) {
					s.Children = append(s.Children, Child{Effect: r*side + c, Failure: 0.1})
				}
			}
		}
		n.Sources = append(n.Sources, s)
	}
	return n
}

// RandomOptions are the options of RandomNetwork. The zero value is usable:
// every zero field takes the default given with it.
type RandomOptions struct {
	// Sources is the number of sources (default 20).
	Sources int
	// Effects is the number of effects (default 100).
	Effects int
	// MinChildren and MaxChildren bound the number of children of a
	// source, drawn uniformly (defaults 4 and 12; MaxChildren at most
	// Effects).
	MinChildren, MaxChildren int
	// PriorMin and PriorMax bound the priors, drawn uniformly (defaults
	// 0.05 and 0.3).
	PriorMin, PriorMax float64
	// FailureMin and FailureMax bound the failures, drawn uniformly per
	// edge (defaults 0.05 and 0.5).
	FailureMin, FailureMax float64
	// Leak is the leak of every effect (default 0.001; negative: no
	// leaks).
	Leak float64
	// Learnable makes the network quartet-learnable (every source has
	// QuartetDepths ≥ 0): the children of the sources that are never
	// found are drawn again until none is left. It needs MinChildren ≥ 4.
	Learnable bool
	// Attempts bounds the redraws of Learnable (default 1000); when they
	// run out RandomNetwork fails.
	Attempts int
}

func (o *RandomOptions) defaults() error {
	o.Sources = cmp.Or(o.Sources, 20)
	o.Effects = cmp.Or(o.Effects, 100)
	o.MinChildren = cmp.Or(o.MinChildren, 4)
	o.MaxChildren = cmp.Or(o.MaxChildren, max(o.MinChildren, min(12, o.Effects)))
	orRange(&o.PriorMin, &o.PriorMax, 0.05, 0.3)
	orRange(&o.FailureMin, &o.FailureMax, 0.05, 0.5)
	o.Leak = cmp.Or(o.Leak, 0.001)
	o.Attempts = cmp.Or(o.Attempts, 1000)
	switch {
	case o.Sources < 0:
		return fmt.Errorf("noisyor: %d sources", o.Sources)
	case o.Effects < 0:
		return fmt.Errorf("noisyor: %d effects", o.Effects)
	case o.MinChildren < 0 || o.MinChildren > o.MaxChildren:
		return fmt.Errorf("noisyor: children per source %d..%d, want 0 ≤ min ≤ max", o.MinChildren, o.MaxChildren)
	case o.MaxChildren > o.Effects:
		return fmt.Errorf("noisyor: up to %d children per source but only %d effects", o.MaxChildren, o.Effects)
	case o.Learnable && o.MinChildren < 4:
		return fmt.Errorf("noisyor: a learnable network needs at least 4 children per source, not %d", o.MinChildren)
	case o.Attempts < 0:
		return fmt.Errorf("noisyor: %d attempts", o.Attempts)
	}
	return checkParamRanges(o.PriorMin, o.PriorMax, o.FailureMin, o.FailureMax, o.Leak)
}

// orRange gives a zero lower bound *lo the default dlo and a zero upper
// bound *hi the default dhi, raised to *lo when that is larger.
func orRange(lo, hi *float64, dlo, dhi float64) {
	*lo = cmp.Or(*lo, dlo)
	*hi = cmp.Or(*hi, max(*lo, dhi))
}

func checkParamRanges(pmin, pmax, fmin, fmax, leak float64) error {
	switch {
	case !(pmin > 0 && pmin <= pmax && pmax <= 1):
		return fmt.Errorf("noisyor: priors in [%v, %v], want 0 < min ≤ max ≤ 1", pmin, pmax)
	case !(fmin >= 0 && fmin <= fmax && fmax < 1):
		return fmt.Errorf("noisyor: failures in [%v, %v], want 0 ≤ min ≤ max < 1", fmin, fmax)
	case !(leak < 1) || math.IsNaN(leak):
		return fmt.Errorf("noisyor: leak %v, want < 1", leak)
	}
	return nil
}

// RandomNetwork draws a random network: sources "X1", "X2", ... with priors
// uniform in [PriorMin, PriorMax], each with a number of children uniform
// in [MinChildren, MaxChildren] chosen uniformly among the effects "e1",
// "e2", ..., with failures uniform in [FailureMin, FailureMax], and the
// same leak on every effect. With Learnable the network is
// quartet-learnable. A nil src uses the fixed seed rand.NewPCG(1, 2); the
// same src gives the same network.
func RandomNetwork(src rand.Source, opt RandomOptions) (*Network, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	rng := seed.Rand(src, seed.Model)
	n := &Network{Effects: make([]string, opt.Effects), Sources: make([]Source, opt.Sources)}
	for a := range n.Effects {
		n.Effects[a] = fmt.Sprintf("e%d", a+1)
	}
	n.Leak = constantLeak(opt.Effects, opt.Leak)
	draw := func(s int) {
		k := opt.MinChildren + rng.IntN(opt.MaxChildren-opt.MinChildren+1)
		kids := drawK(rng, opt.Effects, k)
		ch := make([]Child, k)
		for i, a := range kids {
			ch[i] = Child{Effect: a, Failure: drawUniform(rng, opt.FailureMin, opt.FailureMax)}
		}
		n.Sources[s].Children = ch
	}
	for s := range n.Sources {
		n.Sources[s].Name = fmt.Sprintf("X%d", s+1)
		n.Sources[s].Prior = drawUniform(rng, opt.PriorMin, opt.PriorMax)
		draw(s)
	}
	if !opt.Learnable {
		return n, nil
	}
	for range opt.Attempts {
		depth := QuartetDepths(n)
		bad := false
		for s, d := range depth {
			if d < 0 {
				bad = true
				draw(s)
			}
		}
		if !bad {
			return n, nil
		}
	}
	if slices.Min(append(QuartetDepths(n), 0)) >= 0 {
		return n, nil
	}
	return nil, fmt.Errorf("noisyor: no quartet-learnable network after %d redraws of %d sources with %d..%d children over %d effects; use more effects or fewer children",
		opt.Attempts, opt.Sources, opt.MinChildren, opt.MaxChildren, opt.Effects)
}

func constantLeak(m int, v float64) []float64 {
	if v <= 0 {
		return nil
	}
	l := make([]float64, m)
	for a := range l {
		l[a] = v
	}
	return l
}

func drawUniform(rng *rand.Rand, lo, hi float64) float64 {
	if lo == hi {
		return lo
	}
	return lo + (hi-lo)*rng.Float64()
}

// drawK returns k distinct integers of [0, m) chosen uniformly, in
// increasing order (Floyd's algorithm).
func drawK(rng *rand.Rand, m, k int) []int {
	seen := make(map[int]bool, k)
	out := make([]int, 0, k)
	for j := m - k; j < m; j++ {
		t := rng.IntN(j + 1)
		if seen[t] {
			t = j
		}
		seen[t] = true
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// QMROptions are the options of QMRLike. The zero value is usable: every
// zero field takes the default given with it; a negative Subtypes, Twins
// or NearTwins means none.
type QMROptions struct {
	// Sources is the number of sources, "diseases" (default 570, as
	// aQMR-DT).
	Sources int
	// Effects is the number of effects, "findings" (default 4,000).
	Effects int
	// MedianChildren and ChildrenSpread shape the number of children of
	// an ordinary source: exp of a normal with mean ln MedianChildren and
	// standard deviation ChildrenSpread (defaults 60 and 0.8: most
	// sources have tens of children, a few hundreds), clamped to
	// [MinChildren, MaxChildren] (defaults 6 and 600, at most Effects−2).
	MedianChildren, ChildrenSpread float64
	MinChildren, MaxChildren       int
	// Popularity is the Zipf exponent of the findings' popularity: a
	// source picks its children without replacement with weights
	// rank^−Popularity, the ranks a random permutation of the findings
	// (default 0.5: with the other defaults the most common finding is a
	// child of over a third of the sources, the median one of 8).
	Popularity float64
	// PriorMin and PriorMax bound the priors, drawn log-uniformly
	// (defaults 0.001 and 0.05).
	PriorMin, PriorMax float64
	// FailureMin and FailureMax bound the failures, drawn uniformly per
	// edge (defaults 0.1 and 0.95).
	FailureMin, FailureMax float64
	// Leak is the leak of every effect (default 0.01; negative: none).
	Leak float64
	// Subtypes is the fraction of the ordinary sources that are subtypes
	// of an earlier source (default 0.17).
	Subtypes float64
	// Twins is the number of pairs of sources that share all their
	// children but one each (default 1): never learnable, not even with
	// known structure (no singly-coupled triplet).
	Twins int
	// NearTwins is the number of pairs that share all their children but
	// two each (default 1): singly-coupled triplets exist, quartets never.
	NearTwins int
}

func (o *QMROptions) defaults() error {
	o.Sources = cmp.Or(o.Sources, 570)
	o.Effects = cmp.Or(o.Effects, 4000)
	o.MedianChildren = cmp.Or(o.MedianChildren, 60)
	o.ChildrenSpread = cmp.Or(o.ChildrenSpread, 0.8)
	o.MinChildren = cmp.Or(o.MinChildren, 6)
	o.MaxChildren = cmp.Or(o.MaxChildren, max(o.MinChildren, min(600, o.Effects-2)))
	o.Popularity = cmp.Or(o.Popularity, 0.5)
	orRange(&o.PriorMin, &o.PriorMax, 0.001, 0.05)
	orRange(&o.FailureMin, &o.FailureMax, 0.1, 0.95)
	o.Leak = cmp.Or(o.Leak, 0.01)
	o.Subtypes = cmp.Or(o.Subtypes, 0.17)
	o.Twins = cmp.Or(o.Twins, 1)
	o.NearTwins = cmp.Or(o.NearTwins, 1)
	o.Subtypes = max(o.Subtypes, 0)
	o.Twins = max(o.Twins, 0)
	o.NearTwins = max(o.NearTwins, 0)
	switch {
	case o.Sources < 0:
		return fmt.Errorf("noisyor: %d sources", o.Sources)
	case o.Sources < 2*(o.Twins+o.NearTwins):
		return fmt.Errorf("noisyor: %d sources cannot hold %d twin and %d near-twin pairs", o.Sources, o.Twins, o.NearTwins)
	case o.Effects < 0:
		return fmt.Errorf("noisyor: %d effects", o.Effects)
	case o.MinChildren < 1 || o.MinChildren > o.MaxChildren:
		return fmt.Errorf("noisyor: children per source %d..%d, want 1 ≤ min ≤ max", o.MinChildren, o.MaxChildren)
	case o.MaxChildren+2 > o.Effects:
		return fmt.Errorf("noisyor: up to %d children per source needs at least %d effects, not %d", o.MaxChildren, o.MaxChildren+2, o.Effects)
	case !(o.MedianChildren > 0) || !(o.ChildrenSpread >= 0) || math.IsInf(o.MedianChildren+o.ChildrenSpread, 0):
		return fmt.Errorf("noisyor: children median %v, spread %v: want positive and finite", o.MedianChildren, o.ChildrenSpread)
	case !(o.Popularity >= 0) || math.IsInf(o.Popularity, 0):
		return fmt.Errorf("noisyor: popularity exponent %v, want finite and ≥ 0", o.Popularity)
	case !(o.Subtypes <= 1):
		return fmt.Errorf("noisyor: subtype fraction %v, want ≤ 1", o.Subtypes)
	}
	return checkParamRanges(o.PriorMin, o.PriorMax, o.FailureMin, o.FailureMax, o.Leak)
}

// QMRLike draws a network shaped like the anonymised QMR-DT network of
// Table 1 of Jernite et al. (570 diseases, 45,470 edges): sources
// "D1", "D2", ... ("diseases") over effects "F1", "F2", ... ("findings").
// The recipe, every number an option of QMROptions:
//
//  1. Findings are popular to different degrees: finding a has weight
//     rank(a)^−Popularity for a random ranking, so a few findings (fever,
//     pain) are children of many diseases and most of few.
//  2. Ordinary diseases draw a number of children from a log-normal
//     (median 60, most have tens, a few hundreds) and pick them by
//     popularity without replacement.
//  3. A fraction Subtypes of them are instead subtypes of an earlier
//     disease with at least 8 children (chosen uniformly among those not
//     yet a base, possibly a subtype itself): a random 50–85% of its base's children, leaving the
//     base at least 4 of its own, plus 0, 1 or 2 (probabilities 1/6, 1/6, 2/3)
//     findings of their own. Four children of a subtype hold at least two
//     of its base, so a subtype is found only after its base: chains of
//     subtypes give depths 1, 2, 3. With two findings of its own a
//     subtype has a singly-coupled triplet while its base is there, so it
//     is shallower with known structure (TripletDepths) than with
//     quartets, as in the paper's table.
//  4. Twins pairs share all their children but one each (neither has a
//     singly-coupled triplet, never learnable) and NearTwins pairs all
//     but two each (triplets, but never a quartet): the four undiscoverable
//     diseases of aQMR-DT.
//  5. Priors are log-uniform in [0.001, 0.05], failures uniform in
//     [0.1, 0.95], every leak 0.01; the sources are shuffled before they
//     are named.
//
// With the defaults (mean over 10 seeds; the paper's aQMR-DT in brackets)
// about 44,700 edges [45,470] and these depths:
//
//	depth   triplets: sources   quartets: sources
//	0       505 [527]           464 [469]
//	1        61  [39]            89  [82]
//	2       2.4   [2]            12  [13]
//	3       0.1   [0]           0.9   [2]
//	never     2   [2]             4   [4]
//
// A nil src uses the fixed seed rand.NewPCG(1, 2); the same src gives the
// same network.
func QMRLike(src rand.Source, opt QMROptions) (*Network, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	rng := seed.Rand(src, seed.Model)
	m := opt.Effects
	q := newQMRDraw(rng, &opt)
	pairs := opt.Twins + opt.NearTwins
	ordinary := opt.Sources - 2*pairs
	subtypes := int(math.Round(opt.Subtypes * float64(ordinary)))
	sets := make([][]int, 0, opt.Sources)
	for range ordinary - subtypes {
		sets = append(sets, q.pick(q.size(), nil))
	}
	hasSub := make([]bool, opt.Sources)
	for range subtypes {
		sets = append(sets, q.subtype(sets, hasSub))
	}
	for p := range pairs {
		own := 1
		if p >= opt.Twins {
			own = 2
		}
		x, y := q.twins(own)
		sets = append(sets, x, y)
	}
	rng.Shuffle(len(sets), func(i, j int) { sets[i], sets[j] = sets[j], sets[i] })
	n := &Network{Effects: make([]string, m), Sources: make([]Source, len(sets)), Leak: constantLeak(m, opt.Leak)}
	for a := range n.Effects {
		n.Effects[a] = fmt.Sprintf("F%d", a+1)
	}
	lp, lq := math.Log(opt.PriorMin), math.Log(opt.PriorMax)
	for i, kids := range sets {
		s := Source{Name: fmt.Sprintf("D%d", i+1), Prior: math.Exp(drawUniform(rng, lp, lq))}
		s.Children = make([]Child, len(kids))
		for j, a := range kids {
			s.Children[j] = Child{Effect: a, Failure: drawUniform(rng, opt.FailureMin, opt.FailureMax)}
		}
		n.Sources[i] = s
	}
	if err := n.Validate(); err != nil {
		return nil, errors.Join(errors.New("noisyor: QMRLike built an invalid network (a bug)"), err)
	}
	return n, nil
}

// qmrDraw draws the children of QMRLike's sources.
type qmrDraw struct {
	rng    *rand.Rand
	opt    *QMROptions
	m      int
	weight []float64 // popularity of each finding
	cum    []float64 // cumulative weights
	total  float64
	taken  []int // taken[a] == stamp: a is chosen or skipped
	stamp  int
	keys   []float64
	order  []int
}

// newQMRDraw draws the findings' popularity (step 1 of QMRLike).
func newQMRDraw(rng *rand.Rand, opt *QMROptions) *qmrDraw {
	m := opt.Effects
	q := &qmrDraw{rng: rng, opt: opt, m: m, weight: make([]float64, m), cum: make([]float64, m),
		taken: make([]int, m), keys: make([]float64, m), order: make([]int, 0, m)}
	for r, a := range rng.Perm(m) {
		q.weight[a] = math.Pow(float64(r+1), -opt.Popularity)
	}
	for a, w := range q.weight {
		q.total += w
		q.cum[a] = q.total
	}
	return q
}

// pick chooses k findings by popularity without replacement, none in
// skip, in increasing order: draws by weight, rejecting findings already
// chosen, while few are; then, if needed, the rest by Efraimidis–Spirakis
// (the largest u^(1/w) among those left), which has the same
// distribution.
func (q *qmrDraw) pick(k int, skip []int) []int {
	rng, m := q.rng, q.m
	q.stamp++
	for _, a := range skip {
		q.taken[a] = q.stamp
	}
	out := make([]int, 0, k)
	if k+len(skip) <= m/2 {
		for tries := 0; len(out) < k && tries < 20*k+100; tries++ {
			a, _ := slices.BinarySearch(q.cum, rng.Float64()*q.total)
			a = min(a, m-1)
			if q.taken[a] != q.stamp {
				q.taken[a] = q.stamp
				out = append(out, a)
			}
		}
	}
	if len(out) < k {
		q.order = q.order[:0]
		for a := range m {
			if q.taken[a] != q.stamp {
				q.order = append(q.order, a)
				q.keys[a] = math.Log(1-rng.Float64()) / q.weight[a]
			}
		}
		slices.SortFunc(q.order, func(a, b int) int { return cmp.Compare(q.keys[b], q.keys[a]) })
		out = append(out, q.order[:k-len(out)]...)
	}
	slices.Sort(out)
	return out
}

// size draws the number of children of an ordinary source (step 2).
func (q *qmrDraw) size() int {
	opt := q.opt
	k := int(math.Round(opt.MedianChildren * math.Exp(opt.ChildrenSpread*q.rng.NormFloat64())))
	return min(max(k, opt.MinChildren), opt.MaxChildren)
}

// subtype draws the children of a subtype of one of sets (step 3),
// marking its base in hasSub; without a possible base it draws those of
// an ordinary source.
func (q *qmrDraw) subtype(sets [][]int, hasSub []bool) []int {
	rng := q.rng
	var bases []int
	for i, s := range sets {
		if len(s) >= 8 && !hasSub[i] {
			bases = append(bases, i)
		}
	}
	if len(bases) == 0 {
		return q.pick(q.size(), nil)
	}
	b := bases[rng.IntN(len(bases))]
	hasSub[b] = true
	base := sets[b]
	keep := int(math.Round(drawUniform(rng, 0.5, 0.85) * float64(len(base))))
	keep = min(keep, len(base)-4)
	own := 2
	if u := rng.Float64(); u < 1.0/6 {
		own = 0
	} else if u < 2.0/6 {
		own = 1
	}
	keep = max(keep, 4-own)
	kids := slices.Clone(base)
	rng.Shuffle(len(kids), func(i, j int) { kids[i], kids[j] = kids[j], kids[i] })
	kids = kids[:keep]
	if own > 0 {
		kids = append(kids, q.pick(own, base)...)
	}
	slices.Sort(kids)
	return kids
}

// twins draws the children of a pair of sources that share all but own
// each (step 4).
func (q *qmrDraw) twins(own int) (x, y []int) {
	k := max(q.size()-own, 4)
	all := q.pick(min(k+2*own, q.m), nil)
	q.rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	shared := all[:len(all)-2*own]
	x = slices.Concat(shared, all[len(all)-2*own:len(all)-own])
	y = slices.Concat(shared, all[len(all)-own:])
	slices.Sort(x)
	slices.Sort(y)
	return x, y
}
