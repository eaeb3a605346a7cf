package cli

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// drawnSVG parses an SVG and returns its node elements' classes by id
// and the stroke widths of its edges.
func drawnSVG(t *testing.T, b []byte) (map[string]string, []string, string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	nodes := map[string]string{}
	var widths []string
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range x.Attr {
				attr[a.Name.Local] = a.Value
			}
			if strings.HasPrefix(attr["id"], "node-") {
				nodes[attr["id"]] = attr["class"]
			}
			if x.Name.Local == "line" {
				widths = append(widths, attr["stroke-width"])
			}
		case xml.CharData:
			text.Write(x)
		}
	}
	return nodes, widths, text.String()
}

func TestDrawNewickSVGAndPNG(t *testing.T) {
	dir := t.TempDir()
	nwk := filepath.Join(dir, "t.nwk")
	if err := os.WriteFile(nwk, []byte("((a,b),(c,d),e);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svg := filepath.Join(dir, "t.svg")
	code, out, errs := run(t, "", "draw", nwk, "--out", svg, "--title", "A & B")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "drew 8 nodes (3 hidden)") {
		t.Errorf("summary %q", out)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	nodes, widths, text := drawnSVG(t, b)
	hidden := 0
	for _, c := range nodes {
		if strings.Contains(c, "hidden") {
			hidden++
		}
	}
	if len(nodes) != 8 || hidden != 3 || len(widths) != 7 || !strings.Contains(text, "A & B") {
		t.Fatalf("%d nodes (%d hidden), %d edges, text %q", len(nodes), hidden, len(widths), text)
	}
	// PNG from the extension, and with --format to standard output.
	pngPath := filepath.Join(dir, "t.png")
	if code, _, errs := run(t, "", "draw", nwk, "--out", pngPath, "--layout", "radial"); code != ExitOK {
		t.Fatalf("png: exit %d: %s", code, errs)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run(t, "((a,b),(c,d),e);", "draw", "-", "--out", "-", "--format", "png", "--width", "200")
	if code != ExitOK {
		t.Fatalf("stdin → png stdout: exit %d: %s", code, errs)
	}
	if cfg, err := png.DecodeConfig(strings.NewReader(out)); err != nil || cfg.Width != 200 {
		t.Fatalf("%v %+v", err, cfg)
	}
	// SVG on standard output by default for "-".
	code, out, _ = run(t, "", "draw", nwk, "--out", "-", "--layout", "tidy")
	if code != ExitOK || !strings.HasPrefix(out, "<?xml") {
		t.Fatalf("exit %d: %.80q", code, out)
	}
}

func TestDrawModelStrengthsAndLabels(t *testing.T) {
	dir := t.TempDir()
	for _, gaussian := range []bool{false, true} {
		mpath := writeStarModel(t, dir, gaussian)
		svg := filepath.Join(dir, "m.svg")
		code, _, errs := run(t, "", "draw", mpath, "--out", svg, "--labels")
		if code != ExitOK {
			t.Fatalf("gaussian %v: exit %d: %s", gaussian, code, errs)
		}
		b, _ := os.ReadFile(svg)
		nodes, widths, text := drawnSVG(t, b)
		if len(nodes) != 4 || len(widths) != 3 {
			t.Fatalf("%d nodes, %d edges", len(nodes), len(widths))
		}
		// Edge strengths: 0.8 (Gaussian ρ) or |det| of the CPT over the
		// marginals, not the uniform width of a plain tree.
		for _, w := range widths {
			if w == "1.4" {
				t.Fatalf("edges drawn without strengths: %v", widths)
			}
		}
		if gaussian && widths[0] != "4.12" { // 0.6 + 0.8 × 4.4
			t.Fatalf("Gaussian ρ = 0.8 drawn %s wide", widths[0])
		}
		if !strings.Contains(text, "ball") || !strings.Contains(text, "·") {
			t.Fatalf("hidden label missing from %q", text)
		}
	}
}

func TestDrawUsage(t *testing.T) {
	dir := t.TempDir()
	nwk := filepath.Join(dir, "t.nwk")
	os.WriteFile(nwk, []byte("(a,b,c);"), 0o644)
	for _, args := range [][]string{
		{"draw", nwk}, // no --out
		{"draw", nwk, "--out", filepath.Join(dir, "x.gif")}, // unknown extension
		{"draw", nwk, "--out", filepath.Join(dir, "x.svg"), "--layout", "spiral"},
		{"draw", nwk, "--out", filepath.Join(dir, "x.svg"), "--format", "pdf"},
		{"draw", nwk, "--out", filepath.Join(dir, "x.svg"), "--labels"}, // not a model
		{"draw", nwk, "--out", filepath.Join(dir, "x.svg"), "--root", "zz"},
		{"draw", nwk, "--out", nwk + ".svg", "--width", "-3"},
		{"draw", nwk, "--out", nwk}, // would overwrite the input
		{"draw", nwk, "--out", filepath.Join(dir, "no", "such", "x.svg")},
	} {
		if code, _, errs := run(t, "", args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args[1:], code, ExitUsage, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.svg")); err == nil {
		t.Error("a failed draw left a file")
	}
	if code, _, _ := run(t, "", "draw", filepath.Join(dir, "missing.nwk"), "--out", filepath.Join(dir, "x.svg")); code != ExitFailure {
		t.Errorf("missing input: exit %d", code)
	}
}
