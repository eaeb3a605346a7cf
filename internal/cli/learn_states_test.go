package cli

import (
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A survey whose questions have 2 and 3 answers: learn used to stop with
// "the determinant distance needs equal numbers of states; set a rank k
// (--rank)". Every method now runs without flags, and the distance-based
// ones say which rank they chose; --rank still overrides it.
func TestLearnUnequalStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 4))
	answers := [][]string{{"yes", "no"}, {"yes", "no", "maybe"}}
	var b strings.Builder
	b.WriteString("q1,q2,q3,q4,q5,q6\n")
	for r := 0; r < 400; r++ {
		h1 := rng.IntN(2)
		h2 := h1
		if rng.Float64() < 0.2 {
			h2 = 1 - h1
		}
		for q := 0; q < 6; q++ {
			a := answers[q%2]
			v := h1
			if q >= 3 {
				v = h2
			}
			if rng.Float64() < 0.3 {
				v = rng.IntN(len(a))
			}
			if q > 0 {
				b.WriteByte(',')
			}
			b.WriteString(a[v])
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "survey.csv")
	writeFile(t, path, b.String())
	const line = "distance: rank-2 (the variables have different numbers of states; --rank sets k)"
	for _, m := range []string{"clnj", "clrg", "nj", "rg", "clblind", "mst", "chowliu", "quartet", "regclnj", "regclrg"} {
		code, out, errs := run(t, "", "learn", path, "--method", m)
		if code != ExitOK {
			t.Errorf("%s: exit %d: %s", m, code, errs)
			continue
		}
		distances := m != "chowliu" && m != "quartet" && !strings.HasPrefix(m, "reg")
		if strings.Contains(out, line) != distances {
			t.Errorf("%s: distance line %v, want %v:\n%s", m, !distances, distances, out)
		}
	}
	code, out, errs := run(t, "", "learn", path, "--rank", "3")
	if code != ExitOK || strings.Contains(out, "distance: rank") {
		t.Errorf("--rank 3: exit %d, %s%s", code, out, errs)
	}
	code, out, errs = run(t, "", "learn", path, "--json")
	if code != ExitOK || !strings.Contains(out, `"distance_rank": 2`) {
		t.Errorf("--json: exit %d, %s%s", code, out, errs)
	}
}

// The summary of learn says which hidden-state counts were used: chosen by
// BIC by default when a variable has more than 2 states, uniform when
// --hidden-states gives a number or every variable is binary; --json
// reports them too.
func TestLearnHiddenStatesSummary(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 5))
	var b strings.Builder
	b.WriteString("a,b,c,d,e,f\n")
	for r := 0; r < 600; r++ {
		h := rng.IntN(3)
		for q := 0; q < 6; q++ {
			v := h
			if rng.Float64() < 0.25 {
				v = rng.IntN(3)
			}
			if q > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(v))
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "three.csv")
	writeFile(t, path, b.String())
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "hidden states: auto (3 for every variable; chosen by BIC by default"},
		{[]string{"--hidden-states", "auto"}, "hidden states: auto (3 for every variable)\n"},
		{[]string{"--hidden-states", "3"}, "hidden states: uniform 3\n"},
		{[]string{"--json"}, `"hidden_state_counts": {`},
	} {
		code, out, errs := run(t, "", append([]string{"learn", path}, c.args...)...)
		if code != ExitOK || !strings.Contains(out, c.want) {
			t.Errorf("learn %v: exit %d, want %q in\n%s%s", c.args, code, c.want, out, errs)
		}
	}
}
