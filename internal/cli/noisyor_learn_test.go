package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latentree/latentree/noisyor"
)

// noisyorTestNet is a 3-source network on 12 effects whose second source is
// found only after subtracting the first.
const noisyorTestNet = `{"format":"latentree-model","version":1,"type":"noisy-or",
 "sources":[{"prior":0.3,"children":{"e0":0.1,"e1":0.1,"e2":0.1,"e3":0.1,"e4":0.1,"e5":0.1,"e8":0.1,"e9":0.1}},
            {"prior":0.25,"children":{"e0":0.15,"e1":0.15,"e2":0.15,"e3":0.15,"e6":0.15,"e7":0.15}},
            {"prior":0.25,"children":{"e7":0.2,"e9":0.2,"e10":0.2,"e11":0.2}}],
 "leak":{"e0":0.01,"e1":0.01,"e2":0.01,"e3":0.01,"e4":0.01,"e5":0.01,"e6":0.01,"e7":0.01,"e8":0.01,"e9":0.01,"e10":0.01,"e11":0.01}}`

func TestNoisyorLearnExactAndData(t *testing.T) {
	dir := t.TempDir()
	truth := filepath.Join(dir, "truth.json")
	if err := os.WriteFile(truth, []byte(noisyorTestNet), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "net.json")
	code, stdout, stderr := run(t, "", "noisyor", "learn", "--exact", truth, "--out", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct {
		Sources []struct {
			Depth    int `json:"depth"`
			Children int `json:"children"`
		} `json:"sources"`
		Edges int `json:"edges"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if len(sum.Sources) != 3 || sum.Edges != 18 {
		t.Fatalf("summary %+v", sum)
	}
	depths := map[int]int{}
	for _, s := range sum.Sources {
		depths[s.Depth]++
	}
	if depths[0] != 2 || depths[1] != 1 {
		t.Errorf("depths %v, want two at 0 and one at 1", depths)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	net, _, err := noisyor.ReadJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if net.NumSources() != 3 || net.Sources[2].Learned == nil || net.Sources[2].Learned.Depth != 1 {
		t.Errorf("model file: %d sources, third %+v", net.NumSources(), net.Sources[2].Learned)
	}

	// Data sampled from the truth, learned with the defaults.
	d, err := net.Sample(rand.NewPCG(1, 2), 20000)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	names := d.Names()
	b.WriteString(strings.Join(names, ",") + "\n")
	for r := range d.NumRows() {
		for a := range names {
			if a > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, d.Discrete(a)[r])
		}
		b.WriteByte('\n')
	}
	code, stdout, stderr = run(t, b.String(), "noisyor", "learn", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "3 sources, 18 edges") {
		t.Errorf("data learn summary:\n%s", stdout)
	}

	// --holdout scores a fifth of the rows; --paper runs the quartet
	// stage alone.
	code, stdout, stderr = run(t, b.String(), "noisyor", "learn", "-", "--holdout", "0.2", "--json")
	if code != 0 {
		t.Fatalf("--holdout: exit %d: %s", code, stderr)
	}
	var hs struct {
		Rows    int `json:"rows"`
		Holdout struct {
			Rows   int     `json:"rows"`
			PerRow float64 `json:"loglik_per_row"`
		} `json:"holdout"`
		Stages []struct {
			Name string `json:"name"`
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(stdout), &hs); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if hs.Rows != 16000 || hs.Holdout.Rows != 4000 || !(hs.Holdout.PerRow < 0) || len(hs.Stages) != 2 {
		t.Errorf("--holdout summary %+v", hs)
	}
	code, stdout, stderr = run(t, b.String(), "noisyor", "learn", "-", "--paper")
	if code != 0 {
		t.Fatalf("--paper: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "residual") || !strings.Contains(stdout, "quartets") {
		t.Errorf("--paper summary:\n%s", stdout)
	}
	for _, bad := range [][]string{{"--holdout", "1"}, {"--residual-z", "-1"}, {"--paper", "--residual-z", "3"}} {
		if code, _, _ := run(t, b.String(), append([]string{"noisyor", "learn", "-"}, bad...)...); code == 0 {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestNoisyorLearnBadUsage(t *testing.T) {
	csv := "a,b,c,d\n0,1,0,1\n1,0,1,0\n"
	for _, args := range [][]string{
		{"noisyor", "learn"},
		{"noisyor", "learn", "-", "--rank-tol", "-1"},
		{"noisyor", "learn", "-", "--rank-tol", "1.5"},
		{"noisyor", "learn", "-", "--pmi-tol", "-0.1"},
		{"noisyor", "learn", "-", "--test", "magic"},
		{"noisyor", "learn", "-", "--max-quartets", "0"},
		{"noisyor", "learn", "-", "--spread-tol", "0.1"},
		{"noisyor", "learn", "-", "--max-depth", "-2"},
	} {
		if code, _, stderr := run(t, csv, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	for _, c := range []struct{ csv, want string }{
		{"a,b,c\n0,1,0\n1,0,1\n", "at least 4"},
		{"a,b,c,d\n0,1,2,1\n1,0,1,0\n", `column "c" has value "2"`},
		{"a,b,c,d\n0,1,1,1\n1,0,1,0\n", `"c" is 1 in every observed row`},
		{"a,b,c,d\n0,1,,1\n1,0,1,0\n", "missing"},
	} {
		code, _, stderr := run(t, c.csv, "noisyor", "learn", "-")
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want 1 and %q", c.csv, code, stderr, c.want)
		}
	}
}
