package draw_test

import (
	"fmt"
	"io"

	"github.com/latentree/latentree/draw"
	"github.com/latentree/latentree/tree"
)

// Positions of a hidden node h with three observed children, rooted at h:
// the children one level down, as close as their labels allow, and h over
// the middle one.
func ExamplePositions() {
	t, err := tree.ParseNewick("(a,b,c)h;", tree.NewickOptions{HiddenInternalLabels: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	pos, err := draw.Positions(t, draw.Options{Layout: draw.LayoutTidy})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"h", "a", "b", "c"} {
		v, _ := t.Lookup(name)
		fmt.Printf("%s (%.1f, %.1f)\n", name, pos[v].X, pos[v].Y)
	}
	// draw.SVG(os.Stdout, t, draw.Options{}) would write the picture.
	_ = draw.SVG(io.Discard, t, draw.Options{})
	// Output:
	// h (20.0, 0.0)
	// a (0.0, 50.0)
	// b (20.0, 50.0)
	// c (40.0, 50.0)
}
