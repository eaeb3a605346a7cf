package cli

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeNoise writes rows of independent uniform answers to 6 four-point
// questions.
func writeNoise(t *testing.T, rows int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(8, 8))
	var b strings.Builder
	b.WriteString("a,b,c,d,e,f\n")
	for range rows {
		for j := range 6 {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(1 + rng.IntN(4)))
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "noise.csv")
	writeFile(t, path, b.String())
	return path
}

// TestLearnLCMTable checks learn --method lcm's fit table in text and
// JSON, the BLRT column, and the warning when a best log-likelihood is not
// replicated.
func TestLearnLCMTable(t *testing.T) {
	path := writeNoise(t, 150)
	code, out, errs := run(t, "", "learn", path, "--method", "lcm", "--max-classes", "3", "--restarts", "3", "--blrt", "3", "--blrt-starts", "2")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"fit table of latent class models (kept: smallest BIC", "aBIC", "CAIC", "entR²", "BLRT p", "← kept", "BLRT 1 vs 2 classes: LR", "BLRT 2 vs 3 classes: LR"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	code, out, errs = run(t, "", "learn", path, "--method", "lcm", "--hidden-states", "5", "--restarts", "3", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var j struct {
		LCM struct {
			Rule string `json:"rule"`
			Fits []struct {
				Classes        int       `json:"classes"`
				AIC            float64   `json:"aic"`
				ABIC           float64   `json:"abic"`
				CAIC           float64   `json:"caic"`
				EntropyR2      float64   `json:"entropy_r2"`
				StartLogLiks   []float64 `json:"start_logliks"`
				BestReplicated bool      `json:"best_replicated"`
			} `json:"fits"`
		} `json:"lcm"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.LCM.Rule != "given" || len(j.LCM.Fits) != 1 || len(j.LCM.Fits[0].StartLogLiks) != 3 || j.LCM.Fits[0].CAIC <= j.LCM.Fits[0].AIC {
		t.Fatalf("JSON %+v", j.LCM)
	}
	// Noise fitted with 5 classes: every start ends on its own optimum
	// (learn's TestLCMNotReplicated).
	if j.LCM.Fits[0].BestReplicated || len(j.Warnings) != 1 || !strings.Contains(j.Warnings[0], "best log-likelihood of 5 classes") {
		t.Errorf("no warning: %+v %q", j.LCM.Fits[0], j.Warnings)
	}
	code, _, errs = run(t, "", "learn", path, "--method", "clnj", "--blrt", "3")
	if code == ExitOK || !strings.Contains(errs, "--blrt") {
		t.Errorf("--blrt with clnj: exit %d, %s", code, errs)
	}
}
