package draw_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/latentree/latentree/draw"
)

// Sizes that are not numbers, negative or too large are refused before
// anything is drawn or allocated, naming the option; within the limits a
// PNG is still refused when its pixels would exceed MaxPNGPixels.
func TestSizeOutOfRange(t *testing.T) {
	tr := namedTree(t, "a", "b", "c")
	for _, c := range []struct {
		opt    draw.Options
		option string
	}{
		{draw.Options{Width: math.NaN()}, "Width"},
		{draw.Options{Height: math.Inf(1)}, "Height"},
		{draw.Options{Width: -1}, "Width"},
		{draw.Options{Width: 1e12}, "Width"},
		{draw.Options{Width: 300, Height: draw.MaxSide + 1}, "Height"},
	} {
		for name, write := range map[string]func(*bytes.Buffer) error{
			"svg": func(b *bytes.Buffer) error { return draw.SVG(b, tr, c.opt) },
			"png": func(b *bytes.Buffer) error { return draw.PNG(b, tr, c.opt) },
		} {
			var buf bytes.Buffer
			err := write(&buf)
			var oe *draw.OptionError
			if !errors.As(err, &oe) || oe.Option != c.option {
				t.Errorf("%s %+v: error %v, want an OptionError for %s", name, c.opt, err, c.option)
			}
			if buf.Len() != 0 {
				t.Errorf("%s %+v: %d bytes written", name, c.opt, buf.Len())
			}
		}
	}
	// Both sides at the limit: 2^32 pixels, refused before the image is
	// allocated (16 GiB).
	var buf bytes.Buffer
	err := draw.PNG(&buf, tr, draw.Options{Width: draw.MaxSide, Height: draw.MaxSide})
	var oe *draw.OptionError
	if !errors.As(err, &oe) || buf.Len() != 0 {
		t.Fatalf("PNG of %d² pixels: error %v, %d bytes", draw.MaxSide, err, buf.Len())
	}
	// One side given, the other derived: still bounded.
	if err := draw.PNG(&buf, tr, draw.Options{Height: draw.MaxSide}); err == nil {
		t.Fatalf("PNG of height %d: no error", draw.MaxSide)
	}
}
