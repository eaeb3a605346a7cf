package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/latentree/latentree/model/discrete"
)

// TestCovariates: a model with a root regression shows its coefficients
// as explain prints them (β, SE, z, odds ratio with its 95% interval, the
// numbers of explain.WriteCovariates's documented example, checked by
// hand); without standard errors only β and the odds ratio; without a
// regression no section.
func TestCovariates(t *testing.T) {
	m := testModel(t, 6, 5, false)
	k := m.States[m.Root]
	if k != 2 {
		t.Fatalf("root has %d states, want 2", k)
	}
	m.Regression = &discrete.RootRegression{
		Covariates: []discrete.Covariate{{Name: "age"}, {Name: "sex<b>", States: []string{"f", "m"}}},
		Beta:       []float64{0, 0, 0, 2.1158, -0.0547, -0.6440},
	}
	m.SE = &discrete.StdErrors{Beta: []float64{0, 0, 0, 0.3470, 0.0082, 0.1465}}
	section := func() string {
		page := string(render(t, Input{Model: m}))
		return regexp.MustCompile(`(?s)<section id="covariates">.*?</section>`).FindString(page)
	}
	sec := section()
	if sec == "" {
		t.Fatal("no covariates section")
	}
	for _, want := range []string{
		`<td class="l">1</td><td class="l">(intercept)</td><td>2.1158</td><td>0.3470</td><td>6.10</td><td>8.3 (4.2, 16.4)</td>`,
		`<td class="l">1</td><td class="l">age</td><td>-0.0547</td><td>0.0082</td><td>-6.67</td><td>0.947 (0.932, 0.962)</td>`,
		`<td class="l">1</td><td class="l">sex&lt;b&gt;=m</td><td>-0.6440</td><td>0.1465</td><td>-4.40</td><td>0.525 (0.394, 0.7)</td>`,
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("covariates lack %q:\n%s", want, sec)
		}
	}
	if strings.Count(sec, "<tr>") != 4 {
		t.Errorf("%d rows, want a header and 3 coefficients", strings.Count(sec, "<tr>"))
	}
	m.SE = nil
	sec = section()
	if want := `<td class="l">age</td><td>-0.0547</td><td>0.947</td></tr>`; !strings.Contains(sec, want) || strings.Contains(sec, "<th>SE</th>") {
		t.Errorf("without SEs: want %q and no SE column:\n%s", want, sec)
	}
	m.Regression = nil
	if sec = section(); sec != "" {
		t.Errorf("a section without a regression:\n%s", sec)
	}
}
