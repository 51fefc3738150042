package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// Writing sparse datasets from the command line: import-mtx and sparsify
// define elements of a structured-chunk sparse dataset, created first
// when it does not exist (--chunk, --filter-selection, --filter-data), in
// commits of sparseBatch elements (each affected chunk rewritten once per
// commit), with a progress bar on a terminal.

// sparseBatch is how many elements one commit takes.
const sparseBatch = 1 << 20

// createFlags are the options of a command that creates its sparse DST
// when it does not exist.
type createFlags struct {
	chunk, filterSel, filterData *string
}

func addCreateFlags(fs *flag.FlagSet) *createFlags {
	return &createFlags{
		chunk:      fs.String("chunk", "", "chunk shape of a DST to create, as 100x100"),
		filterSel:  fs.String("filter-selection", "", "filters of a created DST's selection section, as deflate=6"),
		filterData: fs.String("filter-data", "", "filters of a created DST's value section, as shuffle,deflate=4"),
	}
}

// given reports whether any creation option was given.
func (c *createFlags) given() bool {
	return *c.chunk != "" || *c.filterSel != "" || *c.filterData != ""
}

// parseChunk parses a chunk shape "100x100" of rank rank.
func parseChunk(text string, rank int) ([]uint64, error) {
	parts := strings.Split(text, "x")
	if len(parts) != rank {
		return nil, fmt.Errorf("--chunk %q: %d dimensions, want %d", text, len(parts), rank)
	}
	out := make([]uint64, rank)
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 10, 32)
		if err != nil || v == 0 {
			return nil, fmt.Errorf("--chunk %q: dimension %q is not a positive integer", text, p)
		}
		out[i] = v
	}
	return out, nil
}

// sparseWriter returns a Writer of the sparse dataset dst of rw; when
// dst does not exist it is first created (in a transaction of its own)
// as spec with the chunk shape and section filters of c.
func sparseWriter(rw *h5core.RW, dst string, c *createFlags, spec h5core.DatasetSpec) (*sparsecoo.Writer, error) {
	if _, err := rw.File().Open(dst); err == nil {
		if c.given() {
			return nil, fmt.Errorf("%s: %s exists: --chunk and --filter-* only apply when creating it", rw.File().Name(), dst)
		}
	} else if !errors.Is(err, h5core.ErrNotFound) {
		return nil, err
	} else if err := createDataset(rw, dst, c, spec); err != nil {
		return nil, err
	}
	return sparsecoo.NewWriter(rw, dst)
}

// openDataset opens the dataset at path of f.
func openDataset(f *h5core.File, path string) (*h5core.Dataset, error) {
	o, err := f.Open(path)
	if err != nil {
		return nil, err
	}
	return o.Dataset()
}

// createDataset creates DST as spec (Sparse: with the chunk shape and
// section filters of c) in a transaction of its own.
func createDataset(rw *h5core.RW, dst string, c *createFlags, spec h5core.DatasetSpec) error {
	if *c.chunk == "" {
		return fmt.Errorf("%s: %s does not exist: give --chunk to create it", rw.File().Name(), dst)
	}
	var err error
	if spec.Chunk, err = parseChunk(*c.chunk, len(spec.Dims)); err != nil {
		return err
	}
	spec.Sparse = true
	for i, text := range []string{*c.filterSel, *c.filterData} {
		p, err := h5core.ParseFilters(text)
		if err != nil {
			return fmt.Errorf("--%s: %w", []string{"filter-selection", "filter-data"}[i], err)
		}
		if p != nil {
			if spec.SectionFilters == nil {
				spec.SectionFilters = make([][]h5core.Filter, 2)
			}
			spec.SectionFilters[i] = p
		}
	}
	return createIn(rw, dst, spec)
}

// createIn creates the dataset dst as spec, committed.
func createIn(rw *h5core.RW, dst string, spec h5core.DatasetSpec) error {
	tx, err := rw.Begin()
	if err != nil {
		return err
	}
	parent, name := path.Split(path.Clean("/" + dst))
	if err := tx.CreateDataset(parent, name, spec); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// runImportMTX defines the elements of a Matrix Market coordinate file in
// a two-dimensional sparse dataset, created (rows x columns, float64 for
// real matrices, int64 for integer and pattern ones) when it does not
// exist.
func runImportMTX(args []string, stdout io.Writer) error {
	fs := flags("import-mtx")
	cf := addCreateFlags(fs)
	pos, err := parseArgs(fs, args, 3, 3)
	if err != nil {
		return err
	}
	file, dst, mtx := pos[0], pos[1], pos[2]
	in, err := os.Open(mtx)
	if err != nil {
		return err
	}
	defer in.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	h, err := readMTXHeader(sc, mtx)
	if err != nil {
		return err
	}
	typ, err := h5core.NumberType(h.field == "real", true, 8)
	if err != nil {
		return err
	}
	rw, err := h5core.OpenRW(file)
	if err != nil {
		return err
	}
	defer rw.Close()
	w, err := sparseWriter(rw, dst, cf, h5core.DatasetSpec{Type: typ, Dims: []uint64{h.rows, h.cols}})
	if err != nil {
		return err
	}
	ds, err := openDataset(rw.File(), dst)
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
	if max := ds.MaxShape(); h.rows > max[0] || h.cols > max[1] {
		return fmt.Errorf("%s: a %d x %d matrix does not fit %s (maximum %v)", mtx, h.rows, h.cols, dst, max)
	}
	p, err := arrowexport.NewCOOParser(m)
	if err != nil {
		return err
	}
	defer p.Release()
	pr := newProgress(h.nnz, "elements")
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
	want := 3
	if h.field == "pattern" {
		want = 2
	}
	for line := h.lines; sc.Scan(); {
		line++
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '%' {
			continue
		}
		f := strings.Fields(l)
		if len(f) != want {
			return fmt.Errorf("%s:%d: %d fields, want %d", mtx, line, len(f), want)
		}
		r, err1 := strconv.ParseUint(f[0], 10, 64)
		c, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || r == 0 || c == 0 || r > h.rows || c > h.cols {
			return fmt.Errorf("%s:%d: coordinates %q %q are not 1-based indexes of a %d x %d matrix", mtx, line, f[0], f[1], h.rows, h.cols)
		}
		v := "1"
		if want == 3 {
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
	if err := flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d elements defined in %s\n", mtx, done, dst)
	return nil
}

// mtxHeader is what precedes a Matrix Market file's entries.
type mtxHeader struct {
	field      string // real, integer or pattern
	rows, cols uint64
	nnz        int64
	lines      int // lines read, through the size line
}

// readMTXHeader reads the banner, comments and size line of a general
// coordinate Matrix Market file.
func readMTXHeader(sc *bufio.Scanner, name string) (mtxHeader, error) {
	var h mtxHeader
	for sc.Scan() {
		h.lines++
		l := strings.TrimSpace(sc.Text())
		if h.lines == 1 {
			f := strings.Fields(strings.ToLower(l))
			if len(f) < 5 || f[0] != "%%matrixmarket" || f[1] != "matrix" || f[2] != "coordinate" || f[4] != "general" {
				return h, fmt.Errorf("%s: not a general Matrix Market coordinate file (header %q)", name, l)
			}
			if h.field = f[3]; h.field != "real" && h.field != "integer" && h.field != "pattern" {
				return h, fmt.Errorf("%s: %s matrices are not supported (real, integer or pattern)", name, h.field)
			}
			continue
		}
		if l == "" || l[0] == '%' {
			continue
		}
		f := strings.Fields(l)
		var err1, err2, err3 error
		if len(f) == 3 {
			h.rows, err1 = strconv.ParseUint(f[0], 10, 64)
			h.cols, err2 = strconv.ParseUint(f[1], 10, 64)
			h.nnz, err3 = strconv.ParseInt(f[2], 10, 64)
		}
		if len(f) != 3 || err1 != nil || err2 != nil || err3 != nil {
			return h, fmt.Errorf("%s:%d: size line %q", name, h.lines, l)
		}
		return h, nil
	}
	if err := sc.Err(); err != nil {
		return h, err
	}
	return h, fmt.Errorf("%s: no size line", name)
}

// runSparsify copies a dense dataset into a sparse one element by
// element: elements equal to the excluded value (default: SRC's fill
// value) become undefined in DST, the others defined. A DST that does
// not exist is created with SRC's type, shape, maximum shape and fill
// value.
func runSparsify(args []string, stdout io.Writer) error {
	fs := flags("sparsify")
	exclude := fs.String("exclude", "", "value that becomes undefined (default: the fill value)")
	cf := addCreateFlags(fs)
	pos, err := parseArgs(fs, args, 3, 3)
	if err != nil {
		return err
	}
	file, src, dst := pos[0], pos[1], pos[2]
	rw, err := h5core.OpenRW(file)
	if err != nil {
		return err
	}
	defer rw.Close()
	sds, err := openDataset(rw.File(), src)
	if err != nil {
		return err
	}
	fillRaw, fillSet := sds.FillValue()
	spec := h5core.DatasetSpec{Type: sds.Type, Dims: sds.Shape(), MaxDims: sds.MaxShape()}
	if fillSet {
		spec.Fill = fillRaw
	}
	w, err := sparseWriter(rw, dst, cf, spec)
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
