package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExperimentScale(t *testing.T) {
	for _, args := range [][]string{
		{"--rows", "5"},
		{"--rows", "x"},
		{"--vars", "2"},
		{"--row-vars", "1"},
		{"--var-rows", "0"},
		{"--max-em-cells", "NaN"},
		{"--tmp", "/nonexistent/dir"},
		{"--target-runs", "0"},
		{"--trees", "-1"},
	} {
		code, _, errs := run(t, "", append([]string{"experiment", "scale"}, args...)...)
		flag := strings.TrimPrefix(args[0], "--")
		if code != ExitUsage || !strings.Contains(errs, flag) {
			t.Errorf("%v: exit %d, %q (want %d naming --%s)", args, code, errs, ExitUsage, flag)
		}
	}
	out := filepath.Join(t.TempDir(), "scale")
	code, stdout, errs := run(t, "", "experiment", "scale", "--rows", "1000,2000", "--vars", "10", "--row-vars", "10",
		"--var-rows", "1000", "--max-em-cells", "15000", "--tmp", t.TempDir(), "--out", out, "--json", "--targets=false")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []struct {
		Step    string  `json:"step"`
		Seconds float64 `json:"seconds"`
		Skipped bool    `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != 8 {
		t.Fatalf("JSON (%v):\n%s", err, stdout)
	}
	if !rows[7].Skipped || rows[3].Skipped {
		t.Errorf("learn-em skipped at 20,000 cells only: %+v", rows)
	}
	for _, ext := range []string{"csv", "md", "svg", "png"} {
		if _, err := os.Stat(out + "." + ext); err != nil {
			t.Error(err)
		}
	}
	b, _ := os.ReadFile(out + ".md")
	if !strings.Contains(string(b), "| 10 | 2000 | learn-em | – | – | – | skipped") {
		t.Errorf("table:\n%s", b)
	}
}
