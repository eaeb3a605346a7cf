package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// learn --max-pair-memory bounds the pair statistics, read in memory or
// streamed (three binary columns: 3 tables of 2×2 counts, 96 bytes), and
// does not apply to a statistics file.
func TestLearnMaxPairMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	var b strings.Builder
	b.WriteString("a,b,c\n")
	for i := range 40 {
		b.WriteString(strings.Join([]string{pairBit(i, 0), pairBit(i, 1), pairBit(i, 2)}, ",") + "\n")
	}
	writeFile(t, path, b.String())
	for _, stream := range [][]string{nil, {"--stream"}} {
		args := append([]string{"learn", "--structure-only", path}, stream...)
		if code, _, errs := run(t, "", append(args, "--max-pair-memory", "96")...); code != ExitOK {
			t.Errorf("%v at the limit: exit %d, %s", stream, code, errs)
		}
		code, _, errs := run(t, "", append(args, "--max-pair-memory", "95")...)
		if code != ExitFailure || !strings.Contains(errs, "would take 96 B, more than the limit of 95 B") {
			t.Errorf("%v over the limit: exit %d, %s", stream, code, errs)
		}
	}
	if code, _, errs := run(t, "", "learn", "--stats", path, "--max-pair-memory", "1MiB"); code != ExitUsage || !strings.Contains(errs, "--max-pair-memory applies to data") {
		t.Errorf("with --stats: exit %d, %s", code, errs)
	}
}

func pairBit(i, j int) string { return string(rune('0' + (i>>j)&1)) }
