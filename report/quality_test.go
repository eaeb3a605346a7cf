package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/latentree/latentree/explain"
)

// TestClassificationAndResiduals: with the data's classification of every
// hidden variable and the bivariate residuals, the page has a row per
// hidden variable with its entropy R² and relative entropy, and the
// largest residuals first; names are escaped (the model's observed names
// include markup).
func TestClassificationAndResiduals(t *testing.T) {
	m := testModel(t, 12, 5, true)
	in := fullInput(t, m, 300)
	ex, err := explain.Model(m, explain.Options{Data: in.Data})
	if err != nil {
		t.Fatal(err)
	}
	in.Explanation = ex
	if in.Residuals, err = explain.BivariateResiduals(m, in.Data); err != nil {
		t.Fatal(err)
	}
	page := string(render(t, in))
	sec := regexp.MustCompile(`(?s)<section id="classification">.*?</section>`).FindString(page)
	if sec == "" {
		t.Fatal("no classification section")
	}
	for i, h := range ex.Hidden {
		q := h.Classification
		if q == nil {
			t.Fatalf("%s: no classification", h.Name)
		}
		if i >= maxListed {
			break
		}
		row := fmt.Sprintf("<tr><td class=\"l\">%s</td><td>%d</td><td>%.3f</td><td>%.3f</td>", esc(q.Name), len(q.States), q.EntropyR2, q.RelativeEntropy)
		if !strings.Contains(sec, row) {
			t.Errorf("classification lacks %q", row)
		}
	}
	res := regexp.MustCompile(`(?s)<section id="residuals">.*?</section>`).FindString(page)
	if res == "" {
		t.Fatal("no residuals section")
	}
	rows := strings.Count(res, "<tr>") - 1
	if want := min(len(in.Residuals), maxListed) + 1; len(in.Residuals) > maxListed && rows != want || len(in.Residuals) <= maxListed && rows != len(in.Residuals) {
		t.Errorf("%d residual rows for %d pairs", rows, len(in.Residuals))
	}
	top := in.Residuals[0]
	first := fmt.Sprintf("<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%.2f</td>", esc(top.A), esc(top.B), top.BVR)
	if !strings.Contains(res, first) {
		t.Errorf("residuals do not start with %q:\n%s", first, res[:min(len(res), 800)])
	}
	// Without them, no sections.
	in.Residuals = nil
	in.Explanation, _ = explain.Model(m, explain.Options{})
	page = string(render(t, in))
	if strings.Contains(page, `id="classification"`) || strings.Contains(page, `id="residuals"`) {
		t.Error("sections without classification or residuals")
	}
}
