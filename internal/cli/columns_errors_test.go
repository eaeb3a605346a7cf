package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// learn names an identifier column with the --ignore that skips it, and
// reads a semicolon-separated file by its columns; in memory and in
// blocks alike.
func TestLearnNamesIdentifierAndDelimiter(t *testing.T) {
	dir := t.TempDir()
	var ids, semi strings.Builder
	ids.WriteString("id,a,b,c,d\n")
	semi.WriteString("a;b;c;d\n")
	for i := range 100 {
		fmt.Fprintf(&ids, "p%03d,%d,%d,%d,%d\n", i, i%2, i/2%2, i/3%2, i/5%2)
		fmt.Fprintf(&semi, "%d;%d;%d;%d\n", i%2, i/2%2, i/3%2, i/5%2)
	}
	idPath := filepath.Join(dir, "ids.csv")
	semiPath := filepath.Join(dir, "semi.csv")
	writeFile(t, idPath, ids.String())
	writeFile(t, semiPath, semi.String())
	for _, extra := range [][]string{nil, {"--stream"}} {
		args := append([]string{"learn", idPath, "--structure-only"}, extra...)
		want := idPath + `: column "id" looks like an identifier (100 distinct values in 100 rows), not a variable to learn from; skip it with --ignore id`
		if code, _, errs := run(t, "", args...); code == ExitOK || !strings.Contains(errs, want) {
			t.Errorf("%q: exit %d %s", args, code, errs)
		}
		args = append(args, "--ignore", "id")
		if code, _, errs := run(t, "", args...); code != ExitOK {
			t.Errorf("%q: exit %d %s", args, code, errs)
		}
		args = append([]string{"learn", semiPath, "--structure-only"}, extra...)
		if code, out, errs := run(t, "", args...); code != ExitOK || !strings.Contains(out, "over 4 observed variables") {
			t.Errorf("%q: exit %d %s %s", args, code, out, errs)
		}
		args = append(args, "--delimiter", ",")
		if code, _, errs := run(t, "", args...); code == ExitOK || !strings.Contains(errs, "--delimiter ';'") {
			t.Errorf("%q: exit %d %s", args, code, errs)
		}
	}
}
