package draw

import (
	"fmt"
	"math"
)

// MaxSide is the largest Width or Height a drawing may be given, in
// pixels.
const MaxSide = 1 << 16

// MaxPNGPixels is the most pixels a PNG may have (Width × Height, after
// the side not given is derived from the layout's aspect ratio): the
// image is held in memory at 4 bytes a pixel, 256 MiB at this limit.
const MaxPNGPixels = 1 << 26

// An OptionError is an option whose value is out of range, as Validate
// reports it.
type OptionError struct {
	// Option is the field of Options: "Width" or "Height".
	Option string
	// Value is the value given, Want what it must be.
	Value float64
	Want  string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("draw: %s %v: want %s", e.Option, e.Value, e.Want)
}

// Validate reports Width or Height out of range (NaN, infinite, negative
// or above MaxSide) as an *OptionError.
func (o *Options) Validate() error {
	for _, s := range []struct {
		name string
		v    float64
	}{{"Width", o.Width}, {"Height", o.Height}} {
		if math.IsNaN(s.v) || s.v < 0 || s.v > MaxSide {
			return &OptionError{Option: s.name, Value: s.v, Want: fmt.Sprintf("0 (the layout's size) or a size up to %d pixels", MaxSide)}
		}
	}
	switch l := o.Layout; l {
	case LayoutAuto, LayoutTidy, LayoutRadial:
	default:
		return fmt.Errorf("draw: unknown layout %d", int(l))
	}
	return nil
}
