package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// Writing sparse datasets from the command line: import-mtx and sparsify
// define elements of an existing structured-chunk sparse dataset, in
// commits of sparseBatch elements (each affected chunk rewritten once per
// commit), with a progress bar on a terminal.

// sparseBatch is how many elements one commit takes.
const sparseBatch = 1 << 20

// openSparseWriter opens FILE for writing and a Writer of its sparse
// dataset DST (which must exist).
func openSparseWriter(file, dst string) (*h5core.RW, *sparsecoo.Writer, error) {
	rw, err := h5core.OpenRW(file)
	if err != nil {
		return nil, nil, err
	}
	w, err := sparsecoo.NewWriter(rw, dst)
	if err != nil {
		rw.Close()
		return nil, nil, fmt.Errorf("%w (the sparse dataset must exist: creating datasets is not supported yet)", err)
	}
	return rw, w, nil
}

// runImportMTX defines the elements of a Matrix Market coordinate file in
// a two-dimensional sparse dataset.
func runImportMTX(args []string, stdout io.Writer) error {
	if len(args) != 3 {
		return errUsage
	}
	file, dst, mtx := args[0], args[1], args[2]
	in, err := os.Open(mtx)
	if err != nil {
		return err
	}
	defer in.Close()
	rw, w, err := openSparseWriter(file, dst)
	if err != nil {
		return err
	}
	defer rw.Close()
	o, err := rw.File().Open(dst)
	if err != nil {
		return err
	}
	ds, err := o.Dataset()
	if err != nil {
		return err
	}
	m, err := sparsecoo.Open(ds)
	if err != nil {
		return err
	}
	if len(m.Shape()) != 2 {
		return fmt.Errorf("%s: %s has %d dimensions; a Matrix Market matrix has 2", file, dst, len(m.Shape()))
	}
	p, err := arrowexport.NewCOOParser(m)
	if err != nil {
		return err
	}
	defer p.Release()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line, pattern, header := 0, false, false
	var rows, cols uint64
	pr := &progress{}
	defer func() { pr.finish() }()
	var done, shown int64
	var text bytes.Buffer
	flush := func() error {
		if err := p.Write(text.Bytes()); err != nil {
			return fmt.Errorf("%s: %w", mtx, err)
		}
		text.Reset()
		if err := p.Apply(w); err != nil {
			return err
		}
		if err := w.Commit(); err != nil {
			return err
		}
		pr.add(done - shown)
		shown = done
		return nil
	}
	for sc.Scan() {
		line++
		l := strings.TrimSpace(sc.Text())
		if line == 1 {
			f := strings.Fields(strings.ToLower(l))
			if len(f) < 5 || f[0] != "%%matrixmarket" || f[1] != "matrix" || f[2] != "coordinate" || f[4] != "general" {
				return fmt.Errorf("%s: not a general Matrix Market coordinate file (header %q)", mtx, l)
			}
			pattern = f[3] == "pattern"
			continue
		}
		if l == "" || l[0] == '%' {
			continue
		}
		f := strings.Fields(l)
		if !header {
			header = true
			if len(f) != 3 {
				return fmt.Errorf("%s:%d: size line %q", mtx, line, l)
			}
			var err1, err2, err3 error
			rows, err1 = strconv.ParseUint(f[0], 10, 64)
			cols, err2 = strconv.ParseUint(f[1], 10, 64)
			nnz, err3 := strconv.ParseInt(f[2], 10, 64)
			if err1 != nil || err2 != nil || err3 != nil {
				return fmt.Errorf("%s:%d: size line %q", mtx, line, l)
			}
			if max := ds.MaxShape(); rows > max[0] || cols > max[1] {
				return fmt.Errorf("%s: a %d x %d matrix does not fit %s (maximum %v)", mtx, rows, cols, dst, max)
			}
			pr = newProgress(nnz, "elements")
			continue
		}
		want := 3
		if pattern {
			want = 2
		}
		if len(f) != want {
			return fmt.Errorf("%s:%d: %d fields, want %d", mtx, line, len(f), want)
		}
		r, err1 := strconv.ParseUint(f[0], 10, 64)
		c, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || r == 0 || c == 0 || r > rows || c > cols {
			return fmt.Errorf("%s:%d: coordinates %q %q are not 1-based indexes of a %d x %d matrix", mtx, line, f[0], f[1], rows, cols)
		}
		v := "1"
		if !pattern {
			v = f[2]
		}
		fmt.Fprintf(&text, "%d,%d,%s\n", r-1, c-1, v)
		if done++; done%sparseBatch == 0 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if !header {
		return fmt.Errorf("%s: no size line", mtx)
	}
	if err := flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d elements defined in %s\n", mtx, done, dst)
	return nil
}

// runSparsify copies a dense dataset into a sparse one element by
// element: elements equal to the excluded value (default: SRC's fill
// value) become undefined in DST, the others defined.
func runSparsify(args []string, stdout io.Writer) error {
	fs := flags("sparsify")
	exclude := fs.String("exclude", "", "value that becomes undefined (default: the fill value)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 3 {
		return errUsage
	}
	file, src, dst := fs.Arg(0), fs.Arg(1), fs.Arg(2)
	rw, w, err := openSparseWriter(file, dst)
	if err != nil {
		return err
	}
	defer rw.Close()
	o, err := rw.File().Open(src)
	if err != nil {
		return err
	}
	sds, err := o.Dataset()
	if err != nil {
		return err
	}
	shape, es := sds.Shape(), sds.Type.PackedSize()
	if len(shape) != len(w.Shape()) || es != w.ElemSize() || !sds.Type.IsFixedSize() {
		return fmt.Errorf("%s: %s (%s, %v) and %s (rank %d, %d-byte elements) differ in rank or element size", file, src, sds.Type, shape, dst, len(w.Shape()), w.ElemSize())
	}
	fill, _ := sds.FillValue()
	skip := sds.Type.AppendPackedLE(nil, fill, 1)
	if *exclude != "" {
		if skip, err = packValue(sds.Type, *exclude); err != nil {
			return err
		}
	}
	total := int64(sds.NumElements())
	pr := newProgress(total, "elements")
	defer pr.finish()
	row := int64(1)
	for _, d := range shape[1:] {
		row *= int64(d)
	}
	rows := max(1, min(int64(shape[0]), sparseBatch/max(row, 1)))
	raw := make([]byte, rows*row*int64(sds.Type.Size))
	coords := make([]uint64, len(shape))
	var defined int64
	for r0 := int64(0); r0 < int64(shape[0]); r0 += rows {
		n := min(rows, int64(shape[0])-r0) * row
		buf := raw[:n*int64(sds.Type.Size)]
		if _, err := sds.ReadAt(buf, r0*row*int64(sds.Type.Size)); err != nil && err != io.EOF {
			return err
		}
		packed := sds.Type.AppendPackedLE(nil, buf, int(n))
		for i := int64(0); i < n; i++ {
			lin := uint64(r0*row + i)
			for k := len(shape) - 1; k >= 0; k-- {
				coords[k], lin = lin%shape[k], lin/shape[k]
			}
			v := packed[i*int64(es) : (i+1)*int64(es)]
			if bytes.Equal(v, skip) {
				err = w.Erase(coords)
			} else {
				err = w.Define(coords, v)
				defined++
			}
			if err != nil {
				return err
			}
		}
		if err := w.Commit(); err != nil {
			return err
		}
		pr.add(n)
	}
	fmt.Fprintf(stdout, "%s: %d of %d elements defined in %s\n", src, defined, total, dst)
	return nil
}

// packValue parses text as one value of a numeric type, packed
// little-endian.
func packValue(t *h5core.Datatype, text string) ([]byte, error) {
	var u uint64
	switch {
	case t.Class == h5core.ClassFloat && t.Size == 8:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("--exclude %q: %w", text, err)
		}
		u = math.Float64bits(f)
	case t.Class == h5core.ClassFloat && t.Size == 4:
		f, err := strconv.ParseFloat(text, 32)
		if err != nil {
			return nil, fmt.Errorf("--exclude %q: %w", text, err)
		}
		u = uint64(math.Float32bits(float32(f)))
	case t.Class == h5core.ClassFixedPoint && t.Signed:
		v, err := strconv.ParseInt(text, 10, 8*t.Size)
		if err != nil {
			return nil, fmt.Errorf("--exclude %q: %w", text, err)
		}
		u = uint64(v)
	case t.Class == h5core.ClassFixedPoint:
		v, err := strconv.ParseUint(text, 10, 8*t.Size)
		if err != nil {
			return nil, fmt.Errorf("--exclude %q: %w", text, err)
		}
		u = v
	default:
		return nil, fmt.Errorf("--exclude with elements of type %s: %w", t, h5core.ErrUnsupported)
	}
	out := make([]byte, t.Size)
	for i := range out {
		out[i] = byte(u >> (8 * i))
	}
	return out, nil
}
