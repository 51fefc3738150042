package arrowexport

import (
	"fmt"
	"image"

	"github.com/h5fs/h5fs/sparsecoo"
)

// maxPatternSide bounds each side of a sparse matrix's spy plot in pixels.
const maxPatternSide = 2048

// PatternView is a 2-D sparse matrix's spy plot (pattern.png): one pixel
// per bin of PatternBin rows and columns, black where any element of the
// bin is defined, white elsewhere; bins are 1×1 up to maxPatternSide rows
// or columns. Its size is a bound until Finalize encodes it.
type PatternView struct {
	pngFile
	m                *sparsecoo.Matrix
	path             string
	binRows, binCols uint64
	height, width    int
}

// NewPatternView returns the spy plot of m, the matrix of the object at
// path, with the sizing cache of opts, or ErrUnsupported when m is not two-dimensional or has no element.
func NewPatternView(m *sparsecoo.Matrix, path string, opts Options) (*PatternView, error) {
	s := m.Shape()
	if len(s) != 2 || s[0] == 0 || s[1] == 0 {
		return nil, fmt.Errorf("arrowexport: %s: pattern.png needs a non-empty 2-D matrix: %w", path, ErrUnsupported)
	}
	br, bc := PatternBin(s[0]), PatternBin(s[1])
	v := &PatternView{m: m, path: path, binRows: br, binCols: bc,
		height: int((s[0] + br - 1) / br), width: int((s[1] + bc - 1) / bc)}
	v.init(pngBound(v.width, v.height), v.encode, opts)
	return v, nil
}

// PatternBin is how many rows (or columns) of a matrix with n of them
// one pixel of its spy plot covers.
func PatternBin(n uint64) uint64 {
	return max((n+maxPatternSide-1)/maxPatternSide, 1)
}

// encode reads the matrix's defined elements and draws them.
func (v *PatternView) encode() ([]byte, error) {
	img := image.NewGray(image.Rect(0, 0, v.width, v.height))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	err := v.m.Each(func(c []uint64, _ []byte) error {
		img.Pix[int(c[0]/v.binRows)*img.Stride+int(c[1]/v.binCols)] = 0
		return nil
	})
	if err != nil {
		return nil, err
	}
	return encodePNG(v.path, img)
}
