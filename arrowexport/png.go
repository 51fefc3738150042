package arrowexport

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/h5fs/h5fs/h5core"
)

// maxPNGPixels bounds the images made of datasets: a larger one has no
// name.png.
const maxPNGPixels = 4 << 20

// PNGView is a numeric dataset as a picture: a 2-D one in grayscale, a
// 3-D one whose last axis has 3 or 4 elements as RGB or RGBA. Values are
// scaled to 8 bits between the dataset's valid_min and valid_max
// attributes, or between its data's minimum and maximum where it has
// none; a value outside [valid_min, valid_max], NaN, infinite or equal to
// a non-zero fill value makes its pixel transparent. Its size is an upper
// bound until Finalize encodes it.
type PNGView struct {
	pngFile
	ds         *h5core.Dataset
	h, w, ch   int      // rows, columns, channels (1, 3 or 4)
	vmin, vmax *float64 // valid_min, valid_max
}

// NewPNGView returns the picture of dataset o, or ErrUnsupported if it is
// not an integer or float dataset of rank 2, or of rank 3 with a last
// axis of 3 or 4, of at most maxPNGPixels pixels.
func NewPNGView(o *h5core.Object, opts Options) (*PNGView, error) {
	ds, err := o.Dataset()
	if err != nil {
		return nil, err
	}
	s := ds.Shape()
	c := ds.Type.Class
	ch := 1
	if len(s) == 3 && (s[2] == 3 || s[2] == 4) {
		ch = int(s[2])
	} else if len(s) != 2 {
		return nil, ErrUnsupported
	}
	if s[0] == 0 || s[1] == 0 || s[0]*s[1] > maxPNGPixels || ds.IsSparse() ||
		(c != h5core.ClassFixedPoint && c != h5core.ClassFloat) {
		return nil, ErrUnsupported
	}
	v := &PNGView{ds: ds, h: int(s[0]), w: int(s[1]), ch: ch}
	v.init(pngBound(v.w, v.h), v.encode, opts)
	if v.vmin, err = numberAttr(o, "valid_min"); err == nil {
		v.vmax, err = numberAttr(o, "valid_max")
	}
	return v, err
}

// numberAttr returns the number that o's scalar attribute name holds, or
// nil when o has no such attribute or it holds no single number.
func numberAttr(o *h5core.Object, name string) (*float64, error) {
	a, err := o.Attribute(name)
	if a == nil || err != nil || a.NumElements() != 1 {
		return nil, err
	}
	x, err := a.Value()
	if l, ok := x.([]any); ok && len(l) == 1 {
		x = l[0]
	}
	if f := toFloat(x); err == nil && !math.IsNaN(f) {
		return &f, nil
	}
	return nil, nil
}

// pngBound bounds the size of an RGBA PNG of w×h pixels as image/png
// writes it.
func pngBound(w, h int) int64 {
	raw := int64(h) * int64(1+4*w)
	return raw + raw/8 + 4096
}

// pngFile is a picture encoded by Finalize. Its size is exact once
// encoded, and kept in the sizing cache (opts), so that a later mount of
// the unchanged file knows it at once; until then Size is bound.
type pngFile struct {
	bound  int64
	encode func() ([]byte, error)
	opts   Options
	cached int64 // the size the cache knows, 0 if none

	mu  sync.Mutex
	png []byte
}

// pngKind names the cache entries of PNG sizes: the bytes depend on the
// renderer and on Go's encoder.
var pngKind = kindOf("png-v1", runtime.Version())

// init makes v the picture that encode makes, of at most bound bytes,
// with the sizing cache of opts.
func (v *pngFile) init(bound int64, encode func() ([]byte, error), opts Options) {
	v.bound, v.encode, v.opts = bound, encode, opts
	if !opts.load(pngKind, &v.cached) || v.cached <= 0 {
		v.cached = 0
	}
}

// Ext is "png".
func (v *pngFile) Ext() string { return "png" }

// Size returns the PNG's size, or before Finalize a bound.
func (v *pngFile) Size() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.png != nil {
		return int64(len(v.png))
	}
	if v.cached > 0 {
		return v.cached
	}
	return v.bound
}

// Exact reports whether Size is the PNG's size.
func (v *pngFile) Exact() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.png != nil || v.cached > 0
}

// ReadAt implements io.ReaderAt over the encoded PNG.
func (v *pngFile) ReadAt(p []byte, off int64) (int, error) {
	if err := v.Finalize(); err != nil {
		return 0, err
	}
	return readBytesAt(v.png, p, off)
}

// Finalize encodes the picture.
func (v *pngFile) Finalize() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.png != nil {
		return nil
	}
	b, err := v.encode()
	switch {
	case err != nil:
		return err
	case len(b) == 0:
		return fmt.Errorf("arrowexport: png: nothing encoded")
	case v.cached > 0 && int64(len(b)) != v.cached:
		return fmt.Errorf("arrowexport: png: encoded %d bytes, the sizing cache says %d", len(b), v.cached)
	case v.cached == 0:
		v.opts.storeLogged(pngKind, int64(len(b)))
	}
	v.png = b
	return nil
}

// readBytesAt is ReadAt over b.
func readBytesAt(b, p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// encode reads the dataset and encodes the picture.
func (v *PNGView) encode() ([]byte, error) {
	ds := v.ds
	es := int(ds.Type.Size)
	n := v.h * v.w * v.ch
	raw := make([]byte, int64(n)*int64(es))
	if _, err := ds.ReadAt(raw, 0); err != nil && err != io.EOF {
		return nil, err
	}
	fill, fillSet := ds.FillValue()
	fillSet = fillSet && !isZero(fill)
	vals := make([]float64, n)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range vals {
		elem := raw[i*es : (i+1)*es]
		x, err := ds.File().ElementValue(ds.Type, elem)
		if err != nil {
			return nil, err
		}
		f := toFloat(x)
		if math.IsInf(f, 0) || (fillSet && bytes.Equal(elem, fill)) ||
			(v.vmin != nil && f < *v.vmin) || (v.vmax != nil && f > *v.vmax) {
			f = math.NaN()
		}
		vals[i] = f
		if !math.IsNaN(f) {
			lo, hi = min(lo, f), max(hi, f)
		}
	}
	if v.vmin != nil {
		lo = *v.vmin
	}
	if v.vmax != nil {
		hi = *v.vmax
	}
	img := image.NewNRGBA(image.Rect(0, 0, v.w, v.h))
	for p := range v.h * v.w {
		px := vals[p*v.ch : (p+1)*v.ch]
		c := color.NRGBA{A: 255}
		switch v.ch {
		case 1:
			c.R = y8(px[0], lo, hi)
			c.G, c.B = c.R, c.R
		default:
			c.R, c.G, c.B = y8(px[0], lo, hi), y8(px[1], lo, hi), y8(px[2], lo, hi)
			if v.ch == 4 {
				c.A = y8(px[3], lo, hi)
			}
		}
		if slices.ContainsFunc(px, math.IsNaN) {
			continue // transparent
		}
		img.SetNRGBA(p%v.w, p/v.w, c)
	}
	return encodePNG(ds.Path, img)
}

// encodePNG encodes img, the picture of the object at path.
func encodePNG(path string, img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("%s: png: %w", path, err)
	}
	return buf.Bytes(), nil
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
