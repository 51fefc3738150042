package arrowexport

import (
	"fmt"
	"path"
	"runtime"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// maxDatasetColumns caps the columns of a dataset seen as a table: a
// wider last axis has no CSV form.
const maxDatasetColumns = 1 << 16

// DatasetTable returns an ordinary HDF5 dataset as a table, for the CSV
// view. The dimensions of an array datatype are appended to the
// dataset's shape first, as for DatasetArray. A scalar or one-dimensional
// dataset is one column named after the dataset, one row per element, or
// one column per field when its elements are compounds (as an H5TB table
// shows). A dataset of higher rank has its last axis as columns, named
// c0..c<n-1> (a header of numbers would read as data to CSV sniffers such
// as DuckDB's), and its leading axes flattened in row-major order as rows.
// Values read as table columns read them (see table.Decoder). The columns
// of a range of rows share one read of the dataset.
//
// Variable-length sequences, and datasets whose last axis is empty or has
// more than 65536 entries, are ErrUnsupported.
func DatasetTable(ds *h5core.Dataset) (*Table, error) {
	shape, elem, err := datasetShape(ds)
	if err != nil {
		return nil, err
	}
	total, err := numElements(shape)
	if err != nil {
		return nil, err
	}
	r := &datasetRows{ds: ds, rows: total, rec: int64(elem.Size)}
	r.blocks.max = runtime.GOMAXPROCS(0) + 4 // measure's goroutines, a reader and its read-ahead
	perAxis0 := int64(1)
	ncols := 1
	switch rank := len(shape); {
	case rank >= 2:
		last := shape[rank-1]
		if last == 0 || last > maxDatasetColumns {
			return nil, fmt.Errorf("arrowexport: %s: %d columns have no CSV form: %w", ds.Path, last, ErrUnsupported)
		}
		ncols, r.wide = int(last), true
		r.rows, r.rec = total/last, last*int64(elem.Size)
		for _, d := range shape[1 : rank-1] {
			perAxis0 *= d
		}
		err = r.addPart("", 0, elem)
	case elem.Class == h5core.ClassCompound:
		if len(elem.Fields) == 0 {
			return nil, fmt.Errorf("arrowexport: %s: compound without fields: %w", ds.Path, ErrUnsupported)
		}
		for _, f := range elem.Fields {
			if err = r.addPart(f.Name, f.Offset, f.Type); err != nil {
				break
			}
		}
		ncols = len(elem.Fields)
	default:
		err = r.addPart(path.Base(ds.Path), 0, elem)
	}
	if err != nil {
		return nil, fmt.Errorf("arrowexport: %s: %w", ds.Path, err)
	}
	r.chunk, r.ncols = chunkRows(ds, r.rows, perAxis0), ncols
	t := &Table{Columns: make([]ColumnSource, ncols)}
	for j := range t.Columns {
		t.Columns[j] = datasetColumn{r: r, j: j}
	}
	return t, nil
}

// chunkRows is the number of rows that one chunk along the first axis of
// ds covers, when perAxis0 rows of the table make one index of that axis;
// all rows (at least 1) when ds is not chunked.
func chunkRows(ds *h5core.Dataset, rows, perAxis0 int64) int64 {
	rows = max(rows, 1)
	if ds.Layout() != "chunked" || len(ds.ChunkShape()) == 0 || len(ds.Shape()) == 0 || perAxis0 <= 0 {
		return rows
	}
	ch := int64(ds.ChunkShape()[0])
	if ch <= 0 || ch > rows/perAxis0 {
		return rows
	}
	return ch * perAxis0
}

// datasetShape returns the shape of ds with the dimensions of an array
// datatype appended, and the type of its innermost elements.
func datasetShape(ds *h5core.Dataset) ([]int64, *h5core.Datatype, error) {
	var shape []int64
	for _, d := range ds.Shape() {
		shape = append(shape, int64(d))
	}
	if ds.IsNull() {
		shape = []int64{0}
	}
	elem := ds.Type
	for elem.Class == h5core.ClassArray {
		for _, d := range elem.Dims {
			shape = append(shape, int64(d))
		}
		elem = elem.Base
	}
	if (elem.Class == h5core.ClassVlen && elem.VlenKind != h5core.VlenString) || elem.Size <= 0 {
		return nil, nil, fmt.Errorf("arrowexport: %s: %s elements have no CSV form: %w", ds.Path, ds.Type, ErrUnsupported)
	}
	return shape, elem, nil
}

// datasetRows is a dataset seen as rows of rec stored bytes each, and the
// parts of a row that make the columns.
type datasetRows struct {
	ds    *h5core.Dataset
	rows  int64
	rec   int64 // stored bytes of one row
	chunk int64 // rows per unit of storage
	// parts are the fields of a compound row, or the one element type;
	// wide rows repeat parts[0] once per column.
	parts  []datasetPart
	wide   bool
	ncols  int
	blocks sharedBlocks

	fillMu   sync.Mutex
	fillMemo fillMemo
}

// datasetPart is one element of a row: its name, byte offset and type.
type datasetPart struct {
	name  string
	off   int
	t     *h5core.Datatype
	dec   *table.Decoder
	width int64 // csvWidth of t
}

// addPart adds the element called name, of type t at byte offset off.
func (r *datasetRows) addPart(name string, off int, t *h5core.Datatype) error {
	dec, err := table.NewDecoder(r.ds.File(), t)
	if err != nil {
		return err
	}
	r.parts = append(r.parts, datasetPart{name: name, off: off, t: t, dec: dec, width: csvWidth(t, dec.DataType())})
	return nil
}

// part returns column j's element: its name and byte offset in a row.
func (r *datasetRows) part(j int) (p *datasetPart, name string, off int) {
	if r.wide {
		p = &r.parts[0]
		return p, "c" + strconv.Itoa(j), j * p.t.Size
	}
	p = &r.parts[j]
	return p, p.name, p.off
}

// read returns the stored bytes of rows [start, start+n).
func (r *datasetRows) read(start, n int64) ([]byte, error) {
	b := make([]byte, n*r.rec)
	if n == 0 {
		return b, nil
	}
	got, err := r.ds.ReadAt(b, start*r.rec)
	if got == len(b) {
		return b, nil
	}
	if err == nil {
		err = fmt.Errorf("short read: %d of %d bytes", got, len(b))
	}
	return nil, fmt.Errorf("%s rows [%d,%d): %w", r.ds.Path, start, start+n, err)
}

// datasetColumn is column j of a dataset's table.
type datasetColumn struct {
	r *datasetRows
	j int
}

// Field is the column's name and Arrow type.
func (c datasetColumn) Field() arrow.Field {
	p, name, _ := c.r.part(c.j)
	return arrow.Field{Name: name, Type: p.dec.DataType(), Nullable: true}
}

// Len is the number of rows.
func (c datasetColumn) Len() int64 { return c.r.rows }

// ChunkRows is the rows of one chunk along the dataset's first axis, or
// all rows when the dataset is not chunked.
func (c datasetColumn) ChunkRows() int64 { return c.r.chunk }

// Read decodes rows [start, start+n) of the column.
func (c datasetColumn) Read(start, n int64) (arrow.Array, error) {
	r := c.r
	if start < 0 || n < 0 || start > r.rows || n > r.rows-start {
		return nil, fmt.Errorf("%s: rows [%d,%d) outside [0,%d)", r.ds.Path, start, start+n, r.rows)
	}
	p, _, off := r.part(c.j)
	size := p.t.Size
	if int64(size) == r.rec {
		b, err := r.read(start, n) // the only column: nothing to share
		if err != nil {
			return nil, err
		}
		return p.dec.Decode(b, int(n))
	}
	blk, err := r.blocks.take(start, n, r.ncols, func() ([]byte, error) { return r.read(start, n) })
	if err != nil {
		return nil, err
	}
	b := make([]byte, int(n)*size)
	for i := range int(n) {
		copy(b[i*size:(i+1)*size], blk[int64(i)*r.rec+int64(off):])
	}
	a, err := p.dec.Decode(b, int(n))
	if err != nil {
		r.blocks.drop(start)
	}
	return a, err
}

// csvWidth bounds the CSV field of the column's values.
func (c datasetColumn) csvWidth() int64 {
	p, _, _ := c.r.part(c.j)
	return p.width
}
