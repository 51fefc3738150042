package arrowexport

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
)

// csvLayoutVersion changes whenever the CSV renderer's bytes change.
const csvLayoutVersion = "csv-v3"

// csvBlockRows bounds the rows of one CSV block: the unit of the offset
// table and of rendering. Blocks are whole units (chunk-aligned row
// ranges) when units are shorter.
const csvBlockRows = 1 << 16

// csvBlockBytes bounds the estimated bytes of one CSV block, so that the
// blocks of wide tables (and matrices) have fewer rows.
const csvBlockBytes = 8 << 20

// csvBlock returns the rows per block of a table whose units have unit
// rows and whose rows take at most perRow bytes: at most csvBlockRows and
// csvBlockBytes/perRow (but at least one row), whole units when a unit is
// that short.
func csvBlock(unit, perRow int64) int64 {
	limit := max(min(csvBlockRows, csvBlockBytes/max(perRow, 1)), 1)
	if unit <= limit {
		return limit / unit * unit
	}
	return limit
}

// CSVView is a table (or one column) as CSV: a header line of column
// names, then one line per row, fields separated by commas and lines ended
// by "\n". Fields are quoted only when needed (RFC 4180); a missing value
// is an empty field; an empty string is "" so that it differs from a
// missing value, and so is a missing value that would otherwise leave a
// blank line (one-column files), since CSV readers skip blank lines.
//
// Its exact size needs a data pass (Finalize), which also records the byte
// offset of every block of rows, so ReadAt renders only the blocks around
// the bytes asked for. Before Finalize, Size is an upper-bound estimate.
type CSVView struct {
	t      *Table
	opts   Options
	rows   int64
	block  int64 // rows per block
	header []byte
	est    int64

	fin     sync.Mutex // serializes Finalize
	mu      sync.Mutex // guards starts
	starts  []int64    // byte offset of each block, then the file size; nil until final
	blocks  unitCache
	scratch sync.Pool // *[][]byte: a read buffer per column, reused block after block
}

// csvLayout is the cached result of the data pass.
type csvLayout struct {
	Starts []int64
}

// NewCSVView returns t as CSV. The size becomes exact with Finalize, or at
// once if the cache holds the layout.
func NewCSVView(t *Table, opts Options) (*CSVView, error) {
	rows, unit, err := checkTable(t)
	if err != nil {
		return nil, err
	}
	v := &CSVView{t: t, opts: opts, rows: rows}
	perRow := int64(0)
	for i, c := range t.Columns {
		if i > 0 {
			v.header = append(v.header, ',')
		}
		v.header = appendQuoted(v.header, c.Field().Name)
		perRow += csvFieldBound(c) + 1
	}
	v.block = csvBlock(unit, perRow)
	v.header = append(v.header, '\n')
	v.est = int64(len(v.header)) + csvRowsBound(t, rows, perRow)
	var l csvLayout
	if opts.load(v.kind(), &l) && len(l.Starts) == numUnits(rows, v.block)+1 {
		v.starts = l.Starts
	}
	return v, nil
}

func (v *CSVView) kind() string {
	return kindOf(csvLayoutVersion, arrowGoVersion(), fmt.Sprint(v.block))
}

// Ext returns "csv".
func (v *CSVView) Ext() string { return "csv" }

// Size returns the exact size after Finalize, else the estimate.
func (v *CSVView) Size() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.starts != nil {
		return v.starts[len(v.starts)-1]
	}
	return v.est
}

// Exact reports whether the size is exact.
func (v *CSVView) Exact() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.starts != nil
}

// Finalize measures every block once, unless the cache holds the
// offsets, and keeps them in the cache.
func (v *CSVView) Finalize() error { return v.finalize(true) }

// Measure is Finalize without keeping the offsets in the cache: for a
// small view sized at a stat, which costs as little to size again as to
// look up (a listing of 300,000 of them would otherwise append 300,000
// cache entries, and keep them in memory).
func (v *CSVView) Measure() error { return v.finalize(false) }

// finalize measures every block once, unless the offsets are known, and
// stores them in the cache if store is set.
func (v *CSVView) finalize(store bool) error {
	v.fin.Lock()
	defer v.fin.Unlock()
	if v.Exact() {
		return nil
	}
	starts, err := v.measure()
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.starts = starts
	v.mu.Unlock()
	if store {
		v.opts.storeLogged(v.kind(), csvLayout{Starts: starts})
	}
	return nil
}

// measure measures every block once and returns the byte offset of each
// block and the file size.
func (v *CSVView) measure() ([]int64, error) {
	nb := numUnits(v.rows, v.block)
	oneColumn := len(v.t.Columns) == 1
	return measureBlocks(int64(len(v.header)), nb, unknownWidth, func(i int, scratch []byte) (n int64, _ []byte, err error) {
		start, rows := unitRange(i, v.block, v.rows)
		if n, fill, err := fillBlockLen(v.t, start, rows, oneColumn); fill || err != nil {
			return n, scratch, err // never written: sized from one row
		}
		err = v.withBlock(i, func(arrs []arrow.Array) {
			n = int64(arrs[0].Len() * len(arrs)) // the commas and line ends
			for _, a := range arrs {
				var k int64
				k, scratch = fieldsLen(a, oneColumn, scratch)
				n += k
			}
		})
		return n, scratch, err
	})
}

// measureBlocks returns the offsets of the nb blocks of a text file after
// a header of h bytes, and then its size. It measures every block with
// size, on GOMAXPROCS goroutines: size returns the length of block i, and
// scratch, a buffer it may render into, grown as needed for the next call.
// scratch starts with a capacity of perBlock bytes (capped); pages of it
// that are never written are never touched.
func measureBlocks(h int64, nb int, perBlock int64, size func(i int, scratch []byte) (int64, []byte, error)) ([]int64, error) {
	lens := make([]int64, nb)
	var (
		next  atomic.Int64
		first error
		once  sync.Once
		wg    sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), max(nb, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scratch := make([]byte, 0, min(perBlock, maxUnitBytes))
			for {
				i := int(next.Add(1) - 1)
				if i >= nb {
					return
				}
				var err error
				if lens[i], scratch, err = size(i, scratch); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(nb))
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	starts := make([]int64, nb+1)
	starts[0] = h
	for i, n := range lens {
		starts[i+1] = starts[i] + n
	}
	return starts, nil
}

// ReadAt reads the CSV at off, rendering only the blocks it overlaps.
func (v *CSVView) ReadAt(p []byte, off int64) (int, error) {
	if err := v.Finalize(); err != nil {
		return 0, err
	}
	v.mu.Lock()
	starts := v.starts
	v.mu.Unlock()
	return readText(p, off, v.header, starts, &v.blocks, "csv", v.renderBlock)
}

// renderBlock appends the lines of block i to dst.
func (v *CSVView) renderBlock(i int, dst []byte) ([]byte, error) {
	err := v.withBlock(i, func(arrs []arrow.Array) { dst = appendRows(dst, arrs) })
	return dst, err
}

// withBlock calls f with the columns of block i, read into buffers that
// are reused once f returns.
func (v *CSVView) withBlock(i int, f func(arrs []arrow.Array)) error {
	start, n := unitRange(i, v.block, v.rows)
	bufs, _ := v.scratch.Get().(*[][]byte)
	if bufs == nil {
		b := make([][]byte, len(v.t.Columns))
		bufs = &b
	}
	defer v.scratch.Put(bufs)
	arrs, err := v.t.readColumnsInto(start, n, *bufs)
	if err != nil {
		return err
	}
	defer releaseAll(arrs)
	f(arrs)
	return nil
}

// appendRows appends the CSV lines of the rows of arrs, one array per
// column.
func appendRows(dst []byte, arrs []arrow.Array) []byte {
	if len(arrs) == 1 {
		return appendLines(dst, arrs[0])
	}
	fields := make([]fieldAppender, len(arrs))
	nulls := make([]bool, len(arrs))
	for j, a := range arrs {
		fields[j], nulls[j] = csvAppender(a), a.NullN() > 0
	}
	for r := range arrs[0].Len() {
		for j, a := range arrs {
			if j > 0 {
				dst = append(dst, ',')
			}
			if nulls[j] && a.IsNull(r) {
				continue
			}
			dst = fields[j](dst, r)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// readText reads the text file made of header and blocks at off: starts
// holds each block's offset and the file's end (starts[0] == len(header));
// render renders block i, which must have the length starts gives. what
// names the format in errors.
func readText(p []byte, off int64, header []byte, starts []int64, blocks *unitCache, what string, render func(i int, dst []byte) ([]byte, error)) (int, error) {
	n, eof := clip(p, off, starts[len(starts)-1])
	if n == 0 {
		return 0, eof
	}
	p = p[:n]
	if h := int64(len(header)); off < h {
		c := copy(p, header[off:])
		p, off = p[c:], off+int64(c)
	}
	if len(p) > 0 {
		checked := func(i int) ([]byte, error) {
			b, err := render(i, blocks.buffer(int(starts[i+1]-starts[i])))
			if err == nil && int64(len(b)) != starts[i+1]-starts[i] {
				err = fmt.Errorf("arrowexport: %s block %d rendered as %d bytes, layout has %d", what, i, len(b), starts[i+1]-starts[i])
			}
			return b, err
		}
		blocks.textMode(textAhead(starts))
		if err := blocks.readUnits(p, off, starts, checked); err != nil {
			return 0, err
		}
	}
	return n, eof
}

// textCacheBytes bounds the rendered blocks a text view keeps: those
// rendered ahead of a sequential read, and those the kernel's concurrent
// reads (1 MiB each, a few MiB apart) still need. With 4 MiB, `cat` of
// P3's CSV on a mount rendered 3% of its blocks twice; with 8 MiB none.
const textCacheBytes = 8 << 20

// textAhead returns how many blocks a sequential read of a text file with
// block offsets starts renders ahead, one per core, and how many rendered
// blocks it keeps: as many as textCacheBytes holds, but at least the ones
// ahead and two more.
func textAhead(starts []int64) (ahead, keep int) {
	nb := int64(len(starts) - 1)
	avg := (starts[nb]-starts[0])/nb + 1
	keep = int(min(textCacheBytes/avg, 64))
	return min(runtime.GOMAXPROCS(0), max(keep-2, 1)), keep
}
