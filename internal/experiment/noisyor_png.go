package experiment

import (
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// SourceGrid is a figure like Figure 3 of Jernite et al. (2013): one row
// per setting (training size), one column per method, and in each cell
// the sources a method found, each drawn as a W×H image of its children
// with intensity 1 − failure (black: no edge).
type SourceGrid struct {
	W, H      int
	RowLabels []string
	ColLabels []string
	// Cells[r][c] holds the images (len W·H, values in [0, 1]) of cell
	// (r, c); a nil entry leaves a gap (a true source not found).
	Cells [][][][]float64
	// Scale is the size of one image pixel in the PNG (default 5).
	Scale int
}

// WritePNG draws the grid as a PNG.
func (g *SourceGrid) WritePNG(w io.Writer) error {
	if g.W <= 0 || g.H <= 0 {
		return errors.New("experiment: source grid without image size")
	}
	scale := g.Scale
	if scale <= 0 {
		scale = 5
	}
	const gap, pad, labelW, labelH = 3, 12, 110, 18
	perCol := make([]int, len(g.ColLabels))
	for _, row := range g.Cells {
		for c, cell := range row {
			if c < len(perCol) && len(cell) > perCol[c] {
				perCol[c] = len(cell)
			}
		}
	}
	thumbW, thumbH := g.W*scale, g.H*scale
	colX := make([]int, len(perCol)+1)
	colX[0] = labelW
	for c, n := range perCol {
		wd := n*(thumbW+gap) - gap
		if wd < 7*len(g.ColLabels[c]) {
			wd = 7 * len(g.ColLabels[c])
		}
		colX[c+1] = colX[c] + max(wd, thumbW) + pad
	}
	width := colX[len(perCol)] + pad
	height := labelH + len(g.Cells)*(thumbH+pad) + pad
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	text := func(x, y int, s string) {
		d := &font.Drawer{Dst: img, Src: image.Black, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
		d.DrawString(s)
	}
	for c, l := range g.ColLabels {
		text(colX[c], 13, l)
	}
	for r, row := range g.Cells {
		y0 := labelH + r*(thumbH+pad)
		if r < len(g.RowLabels) {
			text(4, y0+thumbH/2+5, g.RowLabels[r])
		}
		for c, cell := range row {
			if c >= len(perCol) {
				break
			}
			for k, pix := range cell {
				x0 := colX[c] + k*(thumbW+gap)
				if pix == nil {
					// A light frame marks a source that was not found.
					for i := 0; i < thumbW; i++ {
						img.Set(x0+i, y0, color.Gray{200})
						img.Set(x0+i, y0+thumbH-1, color.Gray{200})
					}
					for j := 0; j < thumbH; j++ {
						img.Set(x0, y0+j, color.Gray{200})
						img.Set(x0+thumbW-1, y0+j, color.Gray{200})
					}
					continue
				}
				for py := range g.H {
					for px := range g.W {
						v := pix[py*g.W+px]
						if math.IsNaN(v) {
							v = 0
						}
						v = math.Max(0, math.Min(1, v))
						gc := color.Gray{uint8(math.Round(255 * v))}
						draw.Draw(img, image.Rect(x0+px*scale, y0+py*scale, x0+(px+1)*scale, y0+(py+1)*scale), &image.Uniform{gc}, image.Point{}, draw.Src)
					}
				}
			}
		}
	}
	return png.Encode(w, img)
}
