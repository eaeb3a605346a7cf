package experiment

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/latentree/latentree/internal/testenv"
	"github.com/latentree/latentree/noisyor"
)

// TestNoisyorImageSmall runs the image experiment at 3,000 rows: the
// quartet method's sources and held-out score against the truth's, the
// grid and its PNG, the markdown table. Variational EM (its own tests are
// in noisyor/vem) only has to run without an error here: 3 E-steps, not
// 15, which took nine tenths of the test's time.
func TestNoisyorImageSmall(t *testing.T) {
	res, err := NoisyorImage(NoisyorImageConfig{
		Settings: []NoisyorImageSetting{{Rows: 3000, RankTol: 0.01, Label: "3000"}},
		TestRows: 500, Restarts: 1, VEMMaxIter: 3, Seed: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	var q, truth, vem *NoisyorImageRow
	for i := range res.Rows {
		switch res.Rows[i].Method {
		case "quartet":
			q = &res.Rows[i]
		case "true network":
			truth = &res.Rows[i]
		case "variational EM":
			vem = &res.Rows[i]
		}
	}
	if q == nil || truth == nil || vem == nil {
		t.Fatalf("rows %+v", res.Rows)
	}
	if q.Err != "" || vem.Err != "" {
		t.Fatalf("errors: quartet %q, vem %q", q.Err, vem.Err)
	}
	// At 3,000 rows the quartet method finds most sources exactly and its
	// held-out log-likelihood is close to the truth's.
	if q.ExactChildren < 6 {
		t.Errorf("quartet: %d sources with exact children, want ≥ 6", q.ExactChildren)
	}
	if d := truth.HeldOut - q.HeldOut; d < 0 || d > 0.5 {
		t.Errorf("held-out: quartet %v, truth %v", q.HeldOut, truth.HeldOut)
	}
	if len(res.Grid.Cells) != 1 || len(res.Grid.Cells[0]) != 4 || len(res.Grid.Cells[0][3]) != 8 {
		t.Fatalf("grid shape %d", len(res.Grid.Cells))
	}
	var buf bytes.Buffer
	if err := res.Grid.WritePNG(&buf); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// Not blank: the truth column has white pixels and black pixels.
	var light, dark int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, _, _, _ := img.At(x, y).RGBA()
			if r > 0xf000 {
				light++
			} else if r < 0x1000 {
				dark++
			}
		}
	}
	if dark < 1000 || light < 1000 {
		t.Errorf("PNG looks blank: %d dark, %d light pixels", dark, light)
	}
	var md strings.Builder
	if err := WriteNoisyorImageMarkdown(&md, res.Rows); err != nil || !strings.Contains(md.String(), "| 3000 | quartet |") {
		t.Errorf("markdown: %v\n%s", err, md.String())
	}
}

func TestNoisyorDepthSmall(t *testing.T) {
	// Short form: 16 sources (learnable ones at depths 0, 1 and 2, and
	// some never learnable); LATENTREE_LONG=1: 40 sources, 300 effects.
	qmr := testenv.Pick(noisyor.QMROptions{Sources: 16, Effects: 100, MedianChildren: 10},
		noisyor.QMROptions{Sources: 40, Effects: 300, MedianChildren: 20})
	res, err := NoisyorDepth(NoisyorDepthConfig{QMR: qmr, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sources, %d learned correctly", res.Sources, res.Correct)
	if len(res.Rows) < 3 {
		t.Errorf("%d depth rows: the setting is too easy to test subtracting-off", len(res.Rows))
	}
	if res.Wrong != 0 {
		t.Errorf("%d learned sources are not true sources", res.Wrong)
	}
	if res.MaxParamErr > 1e-9 {
		t.Errorf("parameter error %v from exact moments", res.MaxParamErr)
	}
	var learned, quartet, never int
	for _, r := range res.Rows {
		if r.Depth >= 0 {
			learned += r.LearnedSources
			quartet += r.QuartetSources
		} else {
			never = r.QuartetSources
		}
	}
	if learned != res.Correct || quartet+never != res.Sources {
		t.Errorf("table sums: learned %d (correct %d), quartet %d + never %d of %d", learned, res.Correct, quartet, never, res.Sources)
	}
	// Every structurally learnable source is found (here the cliques are
	// few enough to test them all, so depths agree too).
	if learned != quartet {
		t.Errorf("learned %d sources, %d are quartet-learnable", learned, quartet)
	}
	for _, r := range res.Rows {
		if r.LearnedSources != r.QuartetSources {
			t.Errorf("depth %d: learned %d, structural %d", r.Depth, r.LearnedSources, r.QuartetSources)
		}
	}
	if math.IsNaN(res.MaxParamErr) {
		t.Error("NaN error")
	}
}
