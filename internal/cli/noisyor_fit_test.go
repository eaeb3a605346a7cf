package cli

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/noisyor"
)

// writeNoisyorFitData samples 2,000 rows of a two-source network on six
// effects into a CSV file and returns its path.
func writeNoisyorFitData(t *testing.T, dir string) string {
	t.Helper()
	net := &noisyor.Network{
		Effects: []string{"a", "b", "c", "d", "e", "f"},
		Leak:    []float64{0.01, 0.01, 0.01, 0.01, 0.01, 0.01},
		Sources: []noisyor.Source{
			{Name: "S", Prior: 0.3, Children: []noisyor.Child{{Effect: 0, Failure: 0.1}, {Effect: 1, Failure: 0.1}, {Effect: 2, Failure: 0.2}}},
			{Name: "T", Prior: 0.2, Children: []noisyor.Child{{Effect: 3, Failure: 0.1}, {Effect: 4, Failure: 0.2}, {Effect: 5, Failure: 0.1}}},
		},
	}
	d, err := net.Sample(rand.NewPCG(4, 5), 2000)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "d.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := data.WriteCSV(f, d); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNoisyorFitVEMCommand(t *testing.T) {
	dir := t.TempDir()
	csv := writeNoisyorFitData(t, dir)
	out := filepath.Join(dir, "net.json")
	code, stdout, stderr := run(t, "", "noisyor", "fit", csv, "--method", "vem", "--sources", "2", "--restarts", "3", "--seed", "7", "--out", out, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct {
		Method  string `json:"method"`
		Rows    int    `json:"rows"`
		Sources []struct {
			Name     string  `json:"name"`
			Prior    float64 `json:"prior"`
			Children int     `json:"children"`
		} `json:"sources"`
		Bound     float64 `json:"bound"`
		BestStart int     `json:"best_start"`
		Starts    []struct {
			Bound float64 `json:"bound"`
		} `json:"starts"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if sum.Method != "vem" || sum.Rows != 2000 || len(sum.Sources) != 2 || len(sum.Starts) != 3 || !(sum.Bound < 0) ||
		sum.BestStart < 1 || sum.Starts[sum.BestStart-1].Bound != sum.Bound {
		t.Fatalf("summary %+v", sum)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	net, prov, err := noisyor.ReadJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if net.NumSources() != 2 || prov == nil || prov.Method != "vem" || prov.Data == nil || prov.Data.Rows != 2000 {
		t.Fatalf("network %d sources, provenance %+v", net.NumSources(), prov)
	}
	if b, ok := prov.Options["bound"].(float64); !ok || b != sum.Bound {
		t.Errorf("provenance bound %v, summary %v", prov.Options["bound"], sum.Bound)
	}
	// The two sources are found: a, b, c and d, e, f (failure < 0.5).
	var found []string
	for _, s := range net.Sources {
		var ch []string
		for _, c := range s.Children {
			if c.Failure < 0.5 {
				ch = append(ch, net.Effects[c.Effect])
			}
		}
		found = append(found, strings.Join(ch, ""))
	}
	if !(found[0] == "abc" && found[1] == "def") {
		t.Errorf("strong children %q, want abc (prior 0.3) then def", found)
	}

	// Text summary; same seed, same network; network to standard output.
	code, stdout, stderr = run(t, "", "noisyor", "fit", csv, "--sources", "2", "--restarts", "3", "--seed", "7")
	if code != ExitOK || !strings.Contains(stdout, "variational EM: 2 sources on 2000 rows, 6 effects, 3 starts") || !strings.Contains(stdout, "X1") {
		t.Errorf("text summary: exit %d: %s%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, "", "noisyor", "fit", csv, "--sources", "2", "--restarts", "3", "--seed", "7", "--out", "-")
	if code != ExitOK || !strings.Contains(stderr, "variational EM") {
		t.Fatalf("--out -: exit %d: %s", code, stderr)
	}
	net2, _, err := noisyor.ReadJSON(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if net2.NumEdges() != net.NumEdges() || net2.Sources[0].Prior != net.Sources[0].Prior || net2.Leak[3] != net.Leak[3] {
		t.Errorf("same seed, different network")
	}
}

func TestNoisyorFitUsageErrors(t *testing.T) {
	dir := t.TempDir()
	csv := writeNoisyorFitData(t, dir)
	for _, args := range [][]string{
		{"--sources", "2", "--method", "em"},
		{},
		{"--sources", "0"},
		{"--sources", "2", "--restarts", "0"},
		{"--sources", "2", "--max-iter", "0"},
		{"--sources", "2", "--tol", "0"},
		{"--sources", "2", "--leak", "1"},
		{"--sources", "2", "--max-failure", "0"},
		{"--sources", "2", "--out", csv},
	} {
		code, _, stderr := run(t, "", append([]string{"noisyor", "fit", csv}, args...)...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, ExitUsage, stderr)
		}
	}
	if code, _, _ := run(t, "", "noisyor", "fit", "--sources", "2"); code != ExitUsage {
		t.Errorf("no DATA: exit %d", code)
	}
	if code, _, stderr := run(t, "", "noisyor", "fit", filepath.Join(dir, "missing.csv"), "--sources", "2"); code != ExitFailure || !strings.Contains(stderr, "missing.csv") {
		t.Errorf("missing file: exit %d: %s", code, stderr)
	}
}
