package arrowexport

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"sync"

	"github.com/h5fs/h5fs/h5core"
)

// maxPNGPixels bounds the images made of datasets: a larger one has no
// name.png.
const maxPNGPixels = 4 << 20

// PNGView is a 2-D numeric dataset as a grayscale picture: values scaled
// to 8 bits between the data's minimum and maximum, NaN and the fill
// value transparent. Its size is an upper bound until Finalize encodes
// it.
type PNGView struct {
	ds   *h5core.Dataset
	h, w int

	mu  sync.Mutex
	png []byte
}

// NewPNGView returns the picture of ds, or ErrUnsupported if ds is not a
// 2-D integer or float dataset of at most maxPNGPixels elements.
func NewPNGView(ds *h5core.Dataset) (*PNGView, error) {
	s := ds.Shape()
	c := ds.Type.Class
	if len(s) != 2 || s[0] == 0 || s[1] == 0 || s[0]*s[1] > maxPNGPixels || ds.IsSparse() ||
		(c != h5core.ClassFixedPoint && c != h5core.ClassFloat) {
		return nil, ErrUnsupported
	}
	return &PNGView{ds: ds, h: int(s[0]), w: int(s[1])}, nil
}

// Size returns the PNG's size, or before Finalize a bound (the pixels
// stored uncompressed, with every block and chunk header).
func (v *PNGView) Size() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.png != nil {
		return int64(len(v.png))
	}
	raw := int64(v.h) * int64(1+4*v.w)
	return raw + raw/8 + 4096
}

// Exact reports whether Size is the PNG's size.
func (v *PNGView) Exact() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.png != nil
}

// ReadAt implements io.ReaderAt over the encoded PNG.
func (v *PNGView) ReadAt(p []byte, off int64) (int, error) {
	if err := v.Finalize(); err != nil {
		return 0, err
	}
	if off >= int64(len(v.png)) {
		return 0, io.EOF
	}
	n := copy(p, v.png[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Finalize reads the dataset and encodes the picture.
func (v *PNGView) Finalize() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.png != nil {
		return nil
	}
	ds := v.ds
	es := int(ds.Type.Size)
	raw := make([]byte, int64(v.h*v.w)*int64(es))
	if _, err := ds.ReadAt(raw, 0); err != nil && err != io.EOF {
		return err
	}
	fill, fillSet := ds.FillValue()
	vals := make([]float64, v.h*v.w)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range vals {
		elem := raw[i*es : (i+1)*es]
		x, err := ds.File().ElementValue(ds.Type, elem)
		if err != nil {
			return err
		}
		f := toFloat(x)
		if fillSet && bytes.Equal(elem, fill) && !isZero(fill) {
			f = math.NaN()
		}
		vals[i] = f
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			lo, hi = min(lo, f), max(hi, f)
		}
	}
	img := image.NewNRGBA(image.Rect(0, 0, v.w, v.h))
	for i, f := range vals {
		if math.IsNaN(f) {
			continue // transparent
		}
		img.SetNRGBA(i%v.w, i/v.w, color.NRGBA{y8(f, lo, hi), y8(f, lo, hi), y8(f, lo, hi), 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return fmt.Errorf("%s: png: %w", ds.Path, err)
	}
	v.png = buf.Bytes()
	return nil
}

// y8 scales f between lo and hi to 0..255 (clamped; 0 when lo == hi).
func y8(f, lo, hi float64) uint8 {
	if !(hi > lo) {
		return 0
	}
	return uint8(math.Round(255 * min(max((f-lo)/(hi-lo), 0), 1)))
}

// toFloat returns a numeric element value as float64.
func toFloat(x any) float64 {
	switch n := x.(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	case uint64:
		return float64(n)
	case float32:
		return float64(n)
	}
	return math.NaN()
}

// isZero reports whether b holds only zero bytes (the default fill value,
// which is data, not a hole).
func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
