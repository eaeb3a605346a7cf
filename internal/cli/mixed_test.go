package cli

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/latentree/latentree/data"
	"github.com/latentree/latentree/model"
	"github.com/latentree/latentree/model/mixed"
	"github.com/latentree/latentree/tree"
)

// mixedStar returns a conditional-Gaussian model: discrete hidden root h
// (P = 0.4, 0.6) with children x (discrete, 2 states), y (continuous,
// N(−1, 1) or N(2, 0.5) given h) and g (hidden continuous, N(−0.5, 1) or
// N(0.5, 1)), and g's children z1 = 1 + 1.5 g + N(0, 0.5) and z2 = −0.8 g
// + N(0, 1).
func mixedStar(t *testing.T) (*mixed.Model, map[string]int) {
	t.Helper()
	tr, err := tree.ParseNewick("(x,y,(z1,z2)g)h;", tree.NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]int{}
	for _, v := range tr.Nodes() {
		id[tr.Name(v)] = v
	}
	kinds := make([]data.Kind, tr.MaxID())
	states := make([]int, tr.MaxID())
	for name, v := range id {
		if name == "h" || name == "x" {
			kinds[v], states[v] = data.Discrete, 2
		} else {
			kinds[v] = data.Continuous
		}
	}
	m, err := mixed.New(tr, id["h"], kinds, states)
	if err != nil {
		t.Fatal(err)
	}
	m.Prior = []float64{0.4, 0.6}
	m.CPT[id["x"]] = []float64{0.9, 0.1, 0.2, 0.8}
	m.Labels[id["x"]] = []string{"no", "yes"}
	m.Mean[id["y"]], m.Var[id["y"]] = []float64{-1, 2}, []float64{1, 0.5}
	m.Mean[id["g"]] = []float64{-0.5, 0.5}
	m.Mean[id["z1"]][0], m.Var[id["z1"]][0], m.Coef[id["z1"]] = 1, 0.5, 1.5
	m.Coef[id["z2"]] = -0.8
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m, id
}

// The data of a mixed model are read with each observed variable of the
// kind the model gives it, whatever its values look like: x holds numbers
// with many distinct values (read as continuous by itself) and y few
// small integers (read as discrete by itself); from a CSV file and from a
// gzip-compressed one, read in blocks.
func TestReadModelDataMixedKinds(t *testing.T) {
	m, _ := mixedStar(t)
	var b strings.Builder
	b.WriteString("z2,x,y,z1\n")
	for i := range 30 {
		b.WriteString(strings.Join([]string{strconv.Itoa(i % 2), strconv.Itoa(100 + i), strconv.Itoa(i % 3), "0." + strconv.Itoa(i)}, ",") + "\n")
	}
	dir := t.TempDir()
	csvPath := writeTestFile(t, dir, "d.csv", b.String())
	gzPath := filepath.Join(dir, "d.csv.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(b.String()))
	zw.Close()
	if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	want := map[string]data.Kind{"x": data.Discrete, "y": data.Continuous, "z1": data.Continuous, "z2": data.Continuous}
	for _, path := range []string{csvPath, gzPath} {
		d, err := e.readModelData(m, path, &dataFlags{missing: "error", maxStates: 10, delimiter: "auto"})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if d.NumRows() != 30 || d.NumVars() != 4 {
			t.Fatalf("%s: %d rows, %d columns", path, d.NumRows(), d.NumVars())
		}
		for j := range d.NumVars() {
			v := d.Var(j)
			if v.Kind != want[v.Name] {
				t.Errorf("%s: column %s read as %v, want %v", path, v.Name, v.Kind, want[v.Name])
			}
		}
	}
	// A column the model does not have is named.
	bad := writeTestFile(t, dir, "bad.csv", "x,y,z1,w\n1,2,3,4\n2,3,4,5\n")
	_, err := e.readModelData(m, bad, &dataFlags{missing: "error", maxStates: 10, delimiter: "auto"})
	if err == nil || !strings.Contains(err.Error(), `"z2"`) || !strings.Contains(err.Error(), `"w"`) {
		t.Errorf("mismatched columns: %v", err)
	}
}

// mixedConditionals is a mixed model whose Conditionals are given, to
// check how infer writes them.
type mixedConditionals struct {
	*mixed.Model
	cond []model.Conditional
}

func (m *mixedConditionals) Conditionals(d *data.Dataset, nodes []int, opt model.InferOptions) ([]model.Conditional, error) {
	return m.cond, nil
}

func TestWritePosteriorsMixed(t *testing.T) {
	m, id := mixedStar(t)
	d, _, err := data.ReadCSV(strings.NewReader("x,y,z1,z2\nno,1.5,0.2,3\nyes,-2,1,0.5\n"), data.ReadOptions{Discrete: []string{"x"}, Continuous: []string{"y", "z1", "z2"}})
	if err != nil {
		t.Fatal(err)
	}
	hidden := m.Tree.Hidden()
	var cond []model.Conditional
	for _, h := range hidden {
		c := model.Conditional{Node: h, Name: m.Tree.Name(h)}
		if h == id["h"] {
			c.Labels, c.Prob = []string{"0", "1"}, []float64{0.25, 0.75, 0.875, 0.125}
		} else {
			c.Mean, c.SD = []float64{0.5, -1.25}, []float64{0.75, 0.5}
		}
		cond = append(cond, c)
	}
	fake := &mixedConditionals{m, cond}
	var b bytes.Buffer
	if err := writePosteriors(&b, fake, d, false); err != nil {
		t.Fatal(err)
	}
	var want string
	if hidden[0] == id["h"] {
		want = "h=0,h=1,g_mean,g_sd\n0.25,0.75,0.5,0.75\n0.875,0.125,-1.25,0.5\n"
	} else {
		want = "g_mean,g_sd,h=0,h=1\n0.5,0.75,0.25,0.75\n-1.25,0.5,0.875,0.125\n"
	}
	if b.String() != want {
		t.Errorf("posteriors:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := writePosteriors(&b, fake, d, true); err != nil {
		t.Fatal(err)
	}
	want = "h,g\n1,0.5\n0,-1.25\n"
	if hidden[0] != id["h"] {
		want = "g,h\n0.5,1\n-1.25,0\n"
	}
	if b.String() != want {
		t.Errorf("--map:\n%s\nwant\n%s", b.String(), want)
	}
	// Posteriors of the wrong size are an error, not a panic.
	fake.cond[0].Prob, fake.cond[0].Mean = fake.cond[0].Prob[:1], fake.cond[0].Mean[:0]
	if err := writePosteriors(&b, fake, d, false); err == nil {
		t.Error("short posteriors: no error")
	}
}

func TestWriteCellProbabilitiesMixed(t *testing.T) {
	d, _, err := data.ReadCSV(strings.NewReader("x,y\nno,1.5\nyes,2\n"), data.ReadOptions{Discrete: []string{"x"}, Continuous: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	imp := &model.Imputation{Data: d, Cells: []model.ImputedCell{
		{Row: 0, Column: 0, Name: "x", Value: "yes", Prob: 0.75, States: []string{"no", "yes"}, Probs: []float64{0.25, 0.75}},
		{Row: 1, Column: 1, Name: "y", Mean: 1.25, SD: 0.5},
	}}
	var b bytes.Buffer
	if err := writeCellProbabilities(&b, imp); err != nil {
		t.Fatal(err)
	}
	want := "row,column,value,prob,mean,sd\n1,x,no,0.25,,\n1,x,yes,0.75,,\n2,y,,,1.25,0.5\n"
	if b.String() != want {
		t.Errorf("cells:\n%s\nwant\n%s", b.String(), want)
	}
}

// writeMixedModel writes mixedStar's model to dir/mixed.json.
func writeMixedModel(t *testing.T, dir string) (string, *mixed.Model, map[string]int) {
	t.Helper()
	m, id := mixedStar(t)
	path := filepath.Join(dir, "mixed.json")
	var b bytes.Buffer
	if err := m.WriteJSON(&b, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, m, id
}

func TestDrawMixed(t *testing.T) {
	dir := t.TempDir()
	path, _, _ := writeMixedModel(t, dir)
	svg := filepath.Join(dir, "m.svg")
	if code, _, errs := run(t, "", "draw", path, "--out", svg, "--labels"); code != 0 {
		t.Fatalf("draw svg: %d %s", code, errs)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`class="node hidden discrete"`, `class="node hidden continuous"`, `class="node observed continuous"`, `class="node observed discrete"`, `<g class="legend">`, "z1 · z2"} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	dot := filepath.Join(dir, "m.dot")
	if code, _, errs := run(t, "", "draw", path, "--out", dot); code != 0 {
		t.Fatalf("draw dot: %d %s", code, errs)
	}
	if b, err = os.ReadFile(dot); err != nil {
		t.Fatal(err)
	}
	// y, z1, z2 and g are continuous: four double outlines.
	if n := strings.Count(string(b), "peripheries=2"); n != 4 || !strings.HasPrefix(string(b), "graph ") {
		t.Errorf("DOT has %d double outlines, want 4:\n%s", n, b)
	}
	if code, _, errs := run(t, "", "draw", path, "--out", dot, "--labels"); code != ExitUsage || !strings.Contains(errs, "--labels applies to SVG and PNG") {
		t.Errorf("draw dot --labels: %d %s", code, errs)
	}
	if code, _, errs := run(t, "", "draw", path, "--out", filepath.Join(dir, "m.png")); code != 0 {
		t.Fatalf("draw png: %d %s", code, errs)
	}
}

func TestExplainReportMixed(t *testing.T) {
	dir := t.TempDir()
	path, _, _ := writeMixedModel(t, dir)
	code, out, errs := run(t, "", "explain", path)
	if code != 0 {
		t.Fatalf("explain: %d %s", code, errs)
	}
	for _, want := range []string{"mixed model, 2 hidden variables", "h (", ", discrete, depth 0", "g (z1 · z2", ", continuous, parent h, depth 1", "means: y "} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = run(t, "", "explain", path, "--json")
	if code != 0 {
		t.Fatalf("explain --json: %d %s", code, errs)
	}
	for _, want := range []string{`"kind": "mixed"`, `"shifts"`, `"strength"`, `"kind": "continuous"`} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --json lacks %s", want)
		}
	}
	html := filepath.Join(dir, "r.html")
	code, out, errs = run(t, "", "report", path, "--out", html, "--json")
	if code != 0 {
		t.Fatalf("report: %d %s", code, errs)
	}
	if !strings.Contains(out, `"type": "mixed"`) {
		t.Errorf("report summary %s", out)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"kind":"mixed"`) || !strings.Contains(string(b), `"kinds":"`) {
		t.Error("report page has no mixed payload")
	}
}

// score --rows, infer and infer --impute on a mixed model, checked by hand
// on the row "yes,1.5,," (z1 and z2 missing): P(h = a, row) = P(h = a)
// P(x = yes | a) N(1.5; μ_a, σ²_a); g's posterior is the mixture of N(∓0.5,
// 1) with those weights, and z1 = 1 + 1.5 g + N(0, 0.5), z2 = −0.8 g +
// N(0, 1) are imputed with their conditional means and SDs.
func TestScoreInferMixedByHand(t *testing.T) {
	dir := t.TempDir()
	path, _, _ := writeMixedModel(t, dir)
	csv := writeTestFile(t, dir, "d.csv", "x,y,z1,z2\nyes,1.5,,\nno,,0.5,\n,2,1,-1\nno,-1,2,0.3\n")
	normal := func(x, mu, v float64) float64 { return math.Exp(-(x-mu)*(x-mu)/(2*v)) / math.Sqrt(2*math.Pi*v) }
	j0, j1 := 0.4*0.1*normal(1.5, -1, 1), 0.6*0.8*normal(1.5, 2, 0.5)
	p0 := j0 / (j0 + j1)
	gMean := p0*-0.5 + (1-p0)*0.5
	gVar := 1 + p0*0.25 + (1-p0)*0.25 - gMean*gMean
	near := func(what, got string, want float64, tol float64) {
		t.Helper()
		x, err := strconv.ParseFloat(got, 64)
		if err != nil || math.Abs(x-want) > tol*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: %s, want %g", what, got, want)
		}
	}
	code, out, errs := run(t, "", "score", "--rows", "--missing", "keep", path, csv)
	if code != 0 {
		t.Fatalf("score --rows: %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || lines[0] != "row,prob,loglik" {
		t.Fatalf("score --rows:\n%s", out)
	}
	f := strings.Split(lines[1], ",")
	near("row 1 prob", f[1], j0+j1, 1e-12)
	near("row 1 loglik", f[2], math.Log(j0+j1), 1e-12)

	code, out, errs = run(t, "", "infer", "--missing", "keep", path, csv)
	if code != 0 {
		t.Fatalf("infer: %d %s", code, errs)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "h=0,h=1,g_mean,g_sd" || len(lines) != 5 {
		t.Fatalf("infer:\n%s", out)
	}
	f = strings.Split(lines[1], ",")
	near("P(h=0 | row 1)", f[0], p0, 1e-5)
	near("P(h=1 | row 1)", f[1], 1-p0, 1e-5)
	near("E[g | row 1]", f[2], gMean, 1e-5)
	near("SD(g | row 1)", f[3], math.Sqrt(gVar), 1e-5)

	probs := filepath.Join(dir, "p.csv")
	code, out, errs = run(t, "", "infer", "--impute", "--probabilities", probs, path, csv)
	if code != 0 {
		t.Fatalf("infer --impute: %d %s", code, errs)
	}
	if !strings.Contains(errs, "imputed 5 missing cells (1 discrete, 4 continuous)") {
		t.Errorf("impute summary %q", errs)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	f = strings.Split(lines[1], ",")
	if len(lines) != 5 || f[0] != "yes" || f[1] != "1.5" {
		t.Fatalf("imputed data:\n%s", out)
	}
	near("imputed z1", f[2], 1+1.5*gMean, 1e-12)
	near("imputed z2", f[3], -0.8*gMean, 1e-12)
	b, err := os.ReadFile(probs)
	if err != nil {
		t.Fatal(err)
	}
	pl := strings.Split(strings.TrimSpace(string(b)), "\n")
	if pl[0] != "row,column,value,prob,mean,sd" {
		t.Fatalf("probabilities:\n%s", b)
	}
	for _, l := range pl[1:] {
		f := strings.Split(l, ",")
		switch f[0] + f[1] {
		case "1z1":
			near("z1 mean", f[4], 1+1.5*gMean, 1e-5)
			near("z1 sd", f[5], math.Sqrt(2.25*gVar+0.5), 1e-5)
		case "1z2":
			near("z2 mean", f[4], -0.8*gMean, 1e-5)
			near("z2 sd", f[5], math.Sqrt(0.64*gVar+1), 1e-5)
		case "3x":
			if f[4] != "" || f[5] != "" || f[2] != "no" && f[2] != "yes" {
				t.Errorf("discrete cell line %q", l)
			}
		}
	}
}
