package cli

import (
	"bytes"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// zeros is standard input without end, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Endless standard input fails at a limit, within 2 s and a bounded
// allocation, in every command that reads data, a tree or a model from it
// (latentree stats - < /dev/zero reached 10.9 GB; score, draw, fit and
// compare too).
func TestEndlessStdinRefused(t *testing.T) {
	nwk, disc := simulatedTree(t)
	m := filepath.Join(t.TempDir(), "m.json")
	mustRun(t, "fit", "--max-iter", "1", nwk, disc, "--out", m)
	for _, args := range [][]string{
		{"stats", "-"},
		{"score", m, "-"},
		{"fit", nwk, "-"},
		{"draw", "-", "--out", "-"},
		{"compare", "-", nwk},
	} {
		var out, errb bytes.Buffer
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		t0 := time.Now()
		code := Main(args, zeros{}, &out, &errb)
		took := time.Since(t0)
		runtime.ReadMemStats(&after)
		if code == ExitOK || !strings.Contains(errb.String(), "<stdin>") {
			t.Errorf("%v: exit %d, %q", args, code, errb.String())
		}
		// The 64 MiB cap of whole-read inputs is allocated in doubling
		// steps; the data readers fail at rows of 16 MiB (score keeps
		// what it read to read it again).
		limit := uint64(256 << 20)
		if args[0] == "stats" || args[0] == "score" || args[0] == "fit" {
			limit = 512 << 20
		}
		if took > 2*time.Second {
			t.Errorf("%v: took %v", args, took)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > limit {
			t.Errorf("%v: allocated %d MiB", args, grew>>20)
		}
		t.Logf("%v: %v, %d MiB: %s", args, took, (after.TotalAlloc-before.TotalAlloc)>>20, strings.TrimSpace(errb.String()))
	}
}
