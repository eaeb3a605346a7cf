package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/latentree/latentree/data"
)

// jsonFormat and jsonVersion identify the JSON encoding of Stats.
const (
	jsonFormat  = "latentree-stats"
	jsonVersion = 1
)

// jsonStats is the JSON form of Stats.
//
// discrete_pairs concatenates the tables of the discrete pairs i < j (in
// column order), each row-major with the states of i as rows; mixed_counts
// holds, for each discrete variable in column order and each continuous
// variable in column order, the rows where both are observed;
// continuous_pairs holds the moments of the continuous pairs i < j in
// column order, as parallel arrays; mixed_moments holds, for each discrete
// variable in column order, each of its states and each continuous
// variable in column order, the rows where both are observed and the
// discrete one is in that state, and the mean and sum of squared
// deviations of the continuous one over them (absent when there are no
// discrete–continuous pairs, and in statistics written before latentree
// kept these moments, which still read).
type jsonStats struct {
	Format          string      `json:"format"`
	Version         int         `json:"version"`
	Rows            int64       `json:"rows"`
	Pairs           bool        `json:"pairs"`
	Variables       []jsonVar   `json:"variables"`
	DiscretePairs   []int64     `json:"discrete_pairs,omitempty"`
	MixedCounts     []int64     `json:"mixed_counts,omitempty"`
	ContinuousPairs *jsonMoment `json:"continuous_pairs,omitempty"`
	MixedMoments    *jsonGroups `json:"mixed_moments,omitempty"`
}

// jsonGroups holds per-state moments as parallel arrays.
type jsonGroups struct {
	N    []int64   `json:"n"`
	Mean []float64 `json:"mean"`
	M2   []float64 `json:"m2"`
}

// jsonVar is the JSON form of one variable and its own statistics.
type jsonVar struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	States   []string `json:"states,omitempty"`
	Count    int64    `json:"count"`
	Marginal []int64  `json:"marginal,omitempty"`
	Mean     *float64 `json:"mean,omitempty"`
	M2       *float64 `json:"m2,omitempty"`
}

// jsonMoment holds pairwise moments as parallel arrays.
type jsonMoment struct {
	N     []int64   `json:"n"`
	MeanI []float64 `json:"mean_i"`
	MeanJ []float64 `json:"mean_j"`
	M2I   []float64 `json:"m2_i"`
	M2J   []float64 `json:"m2_j"`
	C     []float64 `json:"c"`
}

// MarshalJSON encodes s as a JSON object
// {"format":"latentree-stats","version":1,...} that UnmarshalJSON reads
// back exactly.
func (s *Stats) MarshalJSON() ([]byte, error) {
	js := jsonStats{
		Format:    jsonFormat,
		Version:   jsonVersion,
		Rows:      s.rows,
		Pairs:     s.pairs,
		Variables: make([]jsonVar, len(s.vars)),
	}
	for j, v := range s.vars {
		jv := jsonVar{Name: v.Name, Kind: v.Kind.String(), Count: s.count[j]}
		if v.Kind == data.Discrete {
			jv.States = v.States
			jv.Marginal = s.marg[j]
		} else {
			mean, m2 := s.mean[j], s.m2[j]
			jv.Mean, jv.M2 = &mean, &m2
		}
		js.Variables[j] = jv
	}
	if s.pairs {
		js.DiscretePairs = s.dtab
		js.MixedCounts = s.mixN
		if len(s.cp) > 0 {
			m := &jsonMoment{
				N:     make([]int64, len(s.cp)),
				MeanI: make([]float64, len(s.cp)),
				MeanJ: make([]float64, len(s.cp)),
				M2I:   make([]float64, len(s.cp)),
				M2J:   make([]float64, len(s.cp)),
				C:     make([]float64, len(s.cp)),
			}
			for t, p := range s.cp {
				m.N[t], m.MeanI[t], m.MeanJ[t], m.M2I[t], m.M2J[t], m.C[t] = p.n, p.mi, p.mj, p.m2i, p.m2j, p.c
			}
			js.ContinuousPairs = m
		}
		if s.hasMix && len(s.mixM) > 0 {
			js.MixedMoments = groupsOf(s.mixM)
		}
	}
	return json.Marshal(&js)
}

// groupsOf returns the JSON form of per-state moments.
func groupsOf(m []contPair) *jsonGroups {
	g := &jsonGroups{N: make([]int64, len(m)), Mean: make([]float64, len(m)), M2: make([]float64, len(m))}
	for t, p := range m {
		g.N[t], g.Mean[t], g.M2[t] = p.n, p.mi, p.m2i
	}
	return g
}

// UnmarshalJSON decodes statistics written by MarshalJSON, checking the
// format and version, the sizes of all arrays, that counts are
// non-negative and consistent (marginals sum to counts, pair tables to at
// most the marginals, no count above the number of rows) and that moments
// are finite with non-negative sums of squares. On error s is unchanged.
func (s *Stats) UnmarshalJSON(b []byte) error {
	var js jsonStats
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&js); err != nil {
		return fmt.Errorf("stats: decoding JSON: %w", err)
	}
	if js.Format != jsonFormat {
		return fmt.Errorf("stats: JSON format %q, want %q", js.Format, jsonFormat)
	}
	if js.Version != jsonVersion {
		return fmt.Errorf("stats: JSON version %d not supported (want %d)", js.Version, jsonVersion)
	}
	n, err := fromJSON(&js)
	if err != nil {
		return err
	}
	*s = *n
	return nil
}

// fromJSON checks decoded statistics (from JSON or the binary format) as
// UnmarshalJSON documents and builds them.
func fromJSON(js *jsonStats) (*Stats, error) {
	if js.Rows < 0 {
		return nil, fmt.Errorf("stats: negative number of rows %d", js.Rows)
	}
	vars := make([]data.Variable, len(js.Variables))
	seen := make(map[string]bool, len(vars))
	for j, jv := range js.Variables {
		if jv.Name == "" {
			return nil, fmt.Errorf("stats: variable %d has no name", j+1)
		}
		if seen[jv.Name] {
			return nil, fmt.Errorf("stats: duplicate variable name %q", jv.Name)
		}
		seen[jv.Name] = true
		v := data.Variable{Name: jv.Name}
		switch jv.Kind {
		case "discrete":
			v.Kind = data.Discrete
			if len(jv.States) == 0 || len(jv.States) > data.MaxStates {
				return nil, fmt.Errorf("stats: discrete variable %q has %d states (want 1 to %d)", jv.Name, len(jv.States), data.MaxStates)
			}
			labels := make(map[string]bool, len(jv.States))
			for _, l := range jv.States {
				if labels[l] {
					return nil, fmt.Errorf("stats: variable %q has duplicate state %q", jv.Name, l)
				}
				labels[l] = true
			}
			if jv.Mean != nil || jv.M2 != nil {
				return nil, fmt.Errorf("stats: discrete variable %q has continuous moments", jv.Name)
			}
			v.States = jv.States
		case "continuous":
			v.Kind = data.Continuous
			if jv.States != nil || jv.Marginal != nil {
				return nil, fmt.Errorf("stats: continuous variable %q has states or a marginal", jv.Name)
			}
			if jv.Mean == nil || jv.M2 == nil {
				return nil, fmt.Errorf("stats: continuous variable %q lacks mean or m2", jv.Name)
			}
		default:
			return nil, fmt.Errorf("stats: variable %q has unknown kind %q", jv.Name, jv.Kind)
		}
		vars[j] = v
	}
	cells := newLayout(vars).tableCells()
	if js.Pairs && cells > maxTableCells {
		return nil, fmt.Errorf("stats: pair tables would need %d cells (limit %d)", cells, int64(maxTableCells))
	}
	// The tables are allocated only for as many counts as the input holds.
	if js.Pairs && int64(len(js.DiscretePairs)) != cells {
		return nil, fmt.Errorf("stats: discrete_pairs has %d counts, want %d", len(js.DiscretePairs), cells)
	}
	n := newStats(vars, js.Pairs)
	n.rows = js.Rows
	for j, jv := range js.Variables {
		if jv.Count < 0 || jv.Count > js.Rows {
			return nil, fmt.Errorf("stats: variable %q: count %d outside [0, %d rows]", jv.Name, jv.Count, js.Rows)
		}
		n.count[j] = jv.Count
		if vars[j].Kind == data.Discrete {
			if len(jv.Marginal) != len(jv.States) {
				return nil, fmt.Errorf("stats: variable %q: marginal has %d counts for %d states", jv.Name, len(jv.Marginal), len(jv.States))
			}
			var sum int64
			for _, c := range jv.Marginal {
				if c < 0 {
					return nil, fmt.Errorf("stats: variable %q: negative marginal count %d", jv.Name, c)
				}
				sum += c
			}
			if sum != jv.Count {
				return nil, fmt.Errorf("stats: variable %q: marginal sums to %d, count is %d", jv.Name, sum, jv.Count)
			}
			copy(n.marg[j], jv.Marginal)
			continue
		}
		mean, m2 := *jv.Mean, *jv.M2
		if !finite(mean) || !finite(m2) || m2 < 0 {
			return nil, fmt.Errorf("stats: variable %q: invalid moments mean=%v m2=%v", jv.Name, mean, m2)
		}
		n.mean[j], n.m2[j] = mean, m2
	}
	if !js.Pairs {
		if js.DiscretePairs != nil || js.MixedCounts != nil || js.ContinuousPairs != nil || js.MixedMoments != nil {
			return nil, errors.New("stats: pair statistics present but \"pairs\" is false")
		}
		return n, nil
	}
	if err := n.readDiscretePairs(js.DiscretePairs); err != nil {
		return nil, err
	}
	if err := n.readMixed(js.MixedCounts); err != nil {
		return nil, err
	}
	if err := n.readContinuous(js.ContinuousPairs); err != nil {
		return nil, err
	}
	if err := n.readGroups(js.MixedMoments); err != nil {
		return nil, err
	}
	return n, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// readDiscretePairs checks and stores the discrete pair tables.
func (s *Stats) readDiscretePairs(t []int64) error {
	if int64(len(t)) != s.lay.tableCells() {
		return fmt.Errorf("stats: discrete_pairs has %d counts, want %d", len(t), s.lay.tableCells())
	}
	nd := len(s.lay.dvars)
	for a := 0; a < nd; a++ {
		ja := s.lay.dvars[a]
		na := s.lay.states(a)
		for b := a + 1; b < nd; b++ {
			jb := s.lay.dvars[b]
			nb := s.lay.states(b)
			off := s.lay.offset(a, b)
			tab := t[off : off+int64(na*nb)]
			name := func() string { return fmt.Sprintf("%q and %q", s.vars[ja].Name, s.vars[jb].Name) }
			cols := make([]int64, nb)
			for x := 0; x < na; x++ {
				var row int64
				for y, c := range tab[x*nb : (x+1)*nb] {
					if c < 0 {
						return fmt.Errorf("stats: pair table of %s: negative count %d", name(), c)
					}
					row += c
					cols[y] += c
				}
				if row > s.marg[ja][x] {
					return fmt.Errorf("stats: pair table of %s: state %q of %q counted %d times, more than its marginal %d", name(), s.vars[ja].States[x], s.vars[ja].Name, row, s.marg[ja][x])
				}
			}
			for y, c := range cols {
				if c > s.marg[jb][y] {
					return fmt.Errorf("stats: pair table of %s: state %q of %q counted %d times, more than its marginal %d", name(), s.vars[jb].States[y], s.vars[jb].Name, c, s.marg[jb][y])
				}
			}
		}
	}
	copy(s.dtab, t)
	return nil
}

// readMixed checks and stores the discrete–continuous pair counts.
func (s *Stats) readMixed(t []int64) error {
	nc := len(s.lay.cvars)
	if len(t) != len(s.mixN) {
		return fmt.Errorf("stats: mixed_counts has %d counts, want %d", len(t), len(s.mixN))
	}
	for a, ja := range s.lay.dvars {
		for b, jb := range s.lay.cvars {
			c := t[a*nc+b]
			if c < 0 || c > min(s.count[ja], s.count[jb]) {
				return fmt.Errorf("stats: mixed count of %q and %q is %d, outside [0, %d]", s.vars[ja].Name, s.vars[jb].Name, c, min(s.count[ja], s.count[jb]))
			}
		}
	}
	copy(s.mixN, t)
	return nil
}

// readGroups checks and stores the per-state moments of the
// discrete–continuous pairs; without them (older statistics) s keeps only
// the pair counts.
func (s *Stats) readGroups(g *jsonGroups) error {
	want := s.lay.mixCells()
	if g == nil {
		if want > 0 {
			s.hasMix, s.mixM = false, nil
		}
		return nil
	}
	for _, k := range []struct {
		name string
		n    int
	}{{"n", len(g.N)}, {"mean", len(g.Mean)}, {"m2", len(g.M2)}} {
		if int64(k.n) != want {
			return fmt.Errorf("stats: mixed_moments.%s has %d values, want %d", k.name, k.n, want)
		}
	}
	nc := len(s.lay.cvars)
	for a, ja := range s.lay.dvars {
		for b, jb := range s.lay.cvars {
			var total int64
			for x := range s.lay.states(a) {
				t := s.lay.mixIndex(a, x, b)
				p := contPair{n: g.N[t], mi: g.Mean[t], m2i: g.M2[t]}
				if p.n < 0 || p.n > s.marg[ja][x] {
					return fmt.Errorf("stats: mixed moments of %q in state %q of %q: count %d outside [0, %d]", s.vars[jb].Name, s.vars[ja].States[x], s.vars[ja].Name, p.n, s.marg[ja][x])
				}
				if !finite(p.mi) || !finite(p.m2i) || p.m2i < 0 || p.n == 0 && (p.mi != 0 || p.m2i != 0) {
					return fmt.Errorf("stats: mixed moments of %q in state %q of %q: invalid moments", s.vars[jb].Name, s.vars[ja].States[x], s.vars[ja].Name)
				}
				total += p.n
				s.mixM[t] = p
			}
			if total != s.mixN[a*nc+b] {
				return fmt.Errorf("stats: mixed moments of %q and %q count %d rows, mixed_counts %d", s.vars[ja].Name, s.vars[jb].Name, total, s.mixN[a*nc+b])
			}
		}
	}
	return nil
}

// readContinuous checks and stores the continuous pair moments.
func (s *Stats) readContinuous(m *jsonMoment) error {
	want := len(s.cp)
	if m == nil {
		if want == 0 {
			return nil
		}
		return fmt.Errorf("stats: continuous_pairs missing, want %d pairs", want)
	}
	for _, k := range []struct {
		name string
		n    int
	}{{"n", len(m.N)}, {"mean_i", len(m.MeanI)}, {"mean_j", len(m.MeanJ)}, {"m2_i", len(m.M2I)}, {"m2_j", len(m.M2J)}, {"c", len(m.C)}} {
		if k.n != want {
			return fmt.Errorf("stats: continuous_pairs.%s has %d values, want %d", k.name, k.n, want)
		}
	}
	q := len(s.lay.cvars)
	for a := 0; a < q; a++ {
		for b := a + 1; b < q; b++ {
			t := tri(a, b, q)
			ja, jb := s.lay.cvars[a], s.lay.cvars[b]
			p := contPair{n: m.N[t], mi: m.MeanI[t], mj: m.MeanJ[t], m2i: m.M2I[t], m2j: m.M2J[t], c: m.C[t]}
			if p.n < 0 || p.n > min(s.count[ja], s.count[jb]) {
				return fmt.Errorf("stats: continuous pair %q and %q: count %d outside [0, %d]", s.vars[ja].Name, s.vars[jb].Name, p.n, min(s.count[ja], s.count[jb]))
			}
			if !finite(p.mi) || !finite(p.mj) || !finite(p.m2i) || !finite(p.m2j) || !finite(p.c) || p.m2i < 0 || p.m2j < 0 {
				return fmt.Errorf("stats: continuous pair %q and %q: invalid moments", s.vars[ja].Name, s.vars[jb].Name)
			}
			s.cp[t] = p
		}
	}
	return nil
}
