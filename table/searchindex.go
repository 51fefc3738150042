package table

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/h5fs/h5fs/h5core"
)

// Search index kinds (§10.3).
const (
	KindChunkMinMax = "CHUNK_MINMAX"
	KindSortedRows  = "SORTED_ROWS"
	KindBitmap      = "BITMAP"
	KindChunkBloom  = "CHUNK_BLOOM"
)

// SearchIndex is a search-index dataset of a table's SEARCH_INDEXES group
// (§10). Its content is untrusted (§16): Column.VerifiedMinMax and
// Table.Check(true) compare it with the column it describes.
type SearchIndex struct {
	Name        string
	Path        string
	Kind        string // the KIND attribute; unknown kinds are kept but ignored
	Column      *Column
	Description string

	// SORTED_ROWS: the tail lengths; SORTED_ROWS and BITMAP: `ordered`.
	NaNTail, FillTail uint64
	Ordered           bool
	// BITMAP: the values dataset VALUES references.
	ValuesPath string
	// CHUNK_BLOOM parameters.
	K          int
	MBits      uint64
	Seed       uint32
	HashFamily string

	ds         *h5core.Dataset
	values     *h5core.Dataset
	valuesAddr uint64

	verifyOnce sync.Once
	verified   []Finding
}

// MinMaxEntry is one CHUNK_MINMAX entry (§10.4), for ChunkRows rows of
// the column (N of them in the last chunk). Min and Max hold int64 for
// signed integers (and the codes of enums and categoricals on signed
// types), uint64 for unsigned ones and bool8, float64 for floats, string
// for strings and []byte for opaque values. When the chunk has no value
// (FillCount+NaNCount == N) both are the column's fill value.
type MinMaxEntry struct {
	Min, Max               any
	NaNCount, FillCount, N uint64
}

// dataChunks returns how many chunks of c hold rows of the table and
// their length: ceil(NROWS/chunk) for chunked columns, one chunk of
// NROWS rows otherwise (none when NROWS is 0).
func (c *Column) dataChunks() (n, length int64) {
	nr := c.t.NRows
	if nr == 0 {
		return 0, max(c.ChunkRows, 1)
	}
	if c.src.ds.Layout() != "chunked" {
		return 1, nr
	}
	l := max(c.ChunkRows, 1)
	return (nr + l - 1) / l, l
}

// rowsOf returns the stored length of the index dataset's first dimension.
func (si *SearchIndex) rowsOf() int64 {
	if sh := si.ds.Shape(); len(sh) > 0 {
		return int64(sh[0])
	}
	return 0
}

// field returns a compound field of the index dataset's type by name.
func (si *SearchIndex) field(name string) *h5core.Field {
	for i := range si.ds.Type.Fields {
		if si.ds.Type.Fields[i].Name == name {
			return &si.ds.Type.Fields[i]
		}
	}
	return nil
}

// MinMax returns the entries of a CHUNK_MINMAX index for the column's
// data chunks (entries beyond them are ignored, §11.1).
func (si *SearchIndex) MinMax() ([]MinMaxEntry, error) {
	c := si.Column
	if si.Kind != KindChunkMinMax || c == nil {
		return nil, fmt.Errorf("%s: not a CHUNK_MINMAX index of a column", si.Path)
	}
	nch, _ := c.dataChunks()
	if si.ds.Type.Class != h5core.ClassCompound || len(si.ds.Shape()) != 1 {
		return nil, fmt.Errorf("%s: CHUNK_MINMAX index is not a 1-D compound dataset", si.Path)
	}
	if si.rowsOf() < nch {
		return nil, fmt.Errorf("%s: %d entries for %d data chunks", si.Path, si.rowsOf(), nch)
	}
	fmin, fmax := si.field("min"), si.field("max")
	counts := [3]*h5core.Field{si.field("nan_count"), si.field("fill_count"), si.field("n")}
	if fmin == nil || fmax == nil || counts[0] == nil || counts[1] == nil || counts[2] == nil {
		return nil, fmt.Errorf("%s: CHUNK_MINMAX type %s lacks min, max, nan_count, fill_count or n", si.Path, si.ds.Type)
	}
	k := keyKindOf(c.Type)
	if k == kNone {
		return nil, fmt.Errorf("%s: column %s has no order usable in a CHUNK_MINMAX index", si.Path, c.Name)
	}
	for _, fl := range []*h5core.Field{fmin, fmax} {
		if fl.Type.Class != c.Type.Class || fl.Type.Size != c.Type.Size {
			return nil, fmt.Errorf("%s: field %s is %s, the column is %s", si.Path, fl.Name, fl.Type, c.Type)
		}
	}
	src := wholeSource(si.ds)
	raw, err := src.read(0, nch)
	if err != nil {
		return nil, err
	}
	size := si.ds.Type.Size
	out := make([]MinMaxEntry, nch)
	bound := func(fl *h5core.Field, e []byte) (any, error) {
		if fl.Type.Class != h5core.ClassVlen {
			return keyValue(k, c.Type, elemKey(k, fl.Type, e[fl.Offset:])), nil
		}
		v, err := c.t.f.ElementValue(fl.Type, e[fl.Offset:fl.Offset+fl.Type.Size])
		s, _ := v.(string)
		return s, err
	}
	for i := range out {
		e := raw[i*size : (i+1)*size]
		mn, err := bound(fmin, e)
		if err != nil {
			return nil, err
		}
		mx, err := bound(fmax, e)
		if err != nil {
			return nil, err
		}
		out[i] = MinMaxEntry{
			Min:       mn,
			Max:       mx,
			NaNCount:  uint64(counts[0].Type.Int64(e[counts[0].Offset:])),
			FillCount: uint64(counts[1].Type.Int64(e[counts[1].Offset:])),
			N:         uint64(counts[2].Type.Int64(e[counts[2].Offset:])),
		}
	}
	return out, nil
}

// Permutation returns the row positions of a SORTED_ROWS index, less any
// entries for rows at or beyond NROWS (a longer index left by a
// truncation keeps its order on the remaining rows).
func (si *SearchIndex) Permutation() ([]uint64, error) {
	if si.Kind != KindSortedRows || si.Column == nil {
		return nil, fmt.Errorf("%s: not a SORTED_ROWS index of a column", si.Path)
	}
	t := si.ds.Type
	nr := si.Column.t.NRows
	if t.Class != h5core.ClassFixedPoint || len(si.ds.Shape()) != 1 || si.rowsOf() < nr {
		return nil, fmt.Errorf("%s: SORTED_ROWS must be a 1-D integer dataset of at least NROWS=%d entries", si.Path, nr)
	}
	if si.rowsOf() > nr+maxWholeRows {
		return nil, fmt.Errorf("%s: %d entries for NROWS=%d", si.Path, si.rowsOf(), nr)
	}
	src := wholeSource(si.ds)
	raw, err := src.read(0, si.rowsOf())
	if err != nil {
		return nil, err
	}
	out := make([]uint64, 0, nr)
	for i := 0; i < int(si.rowsOf()); i++ {
		if r := uint64(t.Int64(raw[i*t.Size:])); r < uint64(nr) {
			out = append(out, r)
		}
	}
	if len(out) != int(nr) {
		return nil, fmt.Errorf("%s: %d entries name rows below NROWS=%d", si.Path, len(out), nr)
	}
	return out, nil
}

// Bitmap returns a BITMAP index's indexed values and, for each, the rows
// below NROWS whose bit is set.
func (si *SearchIndex) Bitmap() (values arrow.Array, rows [][]int64, err error) {
	c := si.Column
	if si.Kind != KindBitmap || c == nil || si.values == nil {
		return nil, nil, fmt.Errorf("%s: not a BITMAP index of a column with a VALUES dataset", si.Path)
	}
	bits, nv, err := si.bitmapBytes()
	if err != nil {
		return nil, nil, err
	}
	vc, err := newConverter(si.values.Type, false, nil, c.Fill)
	if err != nil {
		return nil, nil, err
	}
	vsrc := wholeSource(si.values)
	raw, err := vsrc.read(0, int64(nv))
	if err != nil {
		return nil, nil, err
	}
	if values, err = vc.build(c.t.f, raw, nv, nil, nil, 0); err != nil {
		return nil, nil, err
	}
	rows = make([][]int64, nv)
	for k := range rows {
		rows[k] = []int64{}
		for r := int64(0); r < c.t.NRows; r++ {
			if bits[k][r>>3]&(1<<(r&7)) != 0 {
				rows[k] = append(rows[k], r)
			}
		}
	}
	return values, rows, nil
}

// bitmapBytes reads the bitmap rows, cut to ceil(NROWS/8) bytes each, and
// checks the shape against the values dataset.
func (si *SearchIndex) bitmapBytes() ([][]byte, int, error) {
	sh := si.ds.Shape()
	nr := si.Column.t.NRows
	need := (nr + 7) / 8
	if len(sh) != 2 || si.ds.Type.Size != 1 || si.ds.Type.Class != h5core.ClassFixedPoint {
		return nil, 0, fmt.Errorf("%s: BITMAP must be a 2-D uint8 dataset, not %s %v", si.Path, si.ds.Type, sh)
	}
	vsh := si.values.Shape()
	if len(vsh) != 1 || vsh[0] != sh[0] {
		return nil, 0, fmt.Errorf("%s: %d bitmap rows for values dataset of shape %v", si.Path, sh[0], vsh)
	}
	if int64(sh[1]) < need {
		return nil, 0, fmt.Errorf("%s: bitmap rows of %d bytes cannot hold NROWS=%d bits", si.Path, sh[1], nr)
	}
	src := wholeSource(si.ds)
	all, err := src.read(0, int64(sh[0])*int64(sh[1]))
	if err != nil {
		return nil, 0, err
	}
	out := make([][]byte, sh[0])
	for k := range out {
		out[k] = all[int64(k)*int64(sh[1]):][:need]
	}
	return out, int(sh[0]), nil
}

// BloomFilters returns a CHUNK_BLOOM index's filter of each data chunk.
func (si *SearchIndex) BloomFilters() ([][]byte, error) {
	c := si.Column
	if si.Kind != KindChunkBloom || c == nil {
		return nil, fmt.Errorf("%s: not a CHUNK_BLOOM index of a column", si.Path)
	}
	sh := si.ds.Shape()
	nch, _ := c.dataChunks()
	if len(sh) != 2 || si.ds.Type.Size != 1 || si.ds.Type.Class != h5core.ClassFixedPoint {
		return nil, fmt.Errorf("%s: CHUNK_BLOOM must be a 2-D uint8 dataset, not %s %v", si.Path, si.ds.Type, sh)
	}
	if int64(sh[0]) < nch {
		return nil, fmt.Errorf("%s: %d filters for %d data chunks", si.Path, sh[0], nch)
	}
	if si.MBits != 8*sh[1] {
		return nil, fmt.Errorf("%s: m_bits=%d but filters are %d bytes", si.Path, si.MBits, sh[1])
	}
	src := wholeSource(si.ds)
	all, err := src.read(0, nch*int64(sh[1]))
	if err != nil {
		return nil, err
	}
	out := make([][]byte, nch)
	for i := range out {
		out[i] = all[int64(i)*int64(sh[1]):][:sh[1]]
	}
	return out, nil
}
