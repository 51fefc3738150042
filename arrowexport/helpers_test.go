package arrowexport

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os/exec"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// memColumn is a ColumnSource over an Arrow array held in memory.
type memColumn struct {
	field     arrow.Field
	arr       arrow.Array
	chunkRows int64
	raw       []byte // packed elements, when fixed width
	elemSize  int
	stats     map[int64]ChunkStats // nil: no ChunkStatsSource answers
	reads     atomic.Int64         // number of Read calls
}

func (c *memColumn) Field() arrow.Field { return c.field }
func (c *memColumn) Len() int64         { return int64(c.arr.Len()) }
func (c *memColumn) ChunkRows() int64   { return c.chunkRows }
func (c *memColumn) Read(start, n int64) (arrow.Array, error) {
	c.reads.Add(1)
	if start < 0 || start+n > c.Len() {
		return nil, errors.New("rows out of range")
	}
	return array.NewSlice(c.arr, start, start+n), nil
}

// rawMemColumn adds RawSource.
type rawMemColumn struct{ *memColumn }

func (c rawMemColumn) ElemSize() int { return c.elemSize }
func (c rawMemColumn) ReadRaw(start, n int64, dst []byte) error {
	es := int64(c.elemSize)
	copy(dst, c.raw[start*es:(start+n)*es])
	return nil
}

// RawIsArrow: the raw bytes of the test columns are their Arrow values.
func (c rawMemColumn) RawIsArrow() bool { return true }

// statsMemColumn adds ChunkStatsSource.
type statsMemColumn struct{ *memColumn }

func (c statsMemColumn) ChunkStats(i int64) (ChunkStats, bool) {
	s, ok := c.stats[i]
	return s, ok
}

// withStats fills c.stats with the true stats of every chunk, as a
// verified CHUNK_MINMAX index gives them.
func withStats(c *memColumn) statsMemColumn {
	c.stats = map[int64]ChunkStats{}
	for k := int64(0); k*c.chunkRows < c.Len(); k++ {
		var s ChunkStats
		for i := int(k * c.chunkRows); i < int(min((k+1)*c.chunkRows, c.Len())); i++ {
			if c.arr.IsNull(i) {
				s.Nulls++
				continue
			}
			var v any
			switch a := c.arr.(type) {
			case *array.Int64:
				v = a.Value(i)
			case *array.Int32:
				v = int64(a.Value(i))
			case *array.Uint16:
				v = uint64(a.Value(i))
			case *array.Uint32:
				v = uint64(a.Value(i))
			case *array.Float32:
				v = float64(a.Value(i))
			case *array.Float64:
				v = a.Value(i)
			case *array.Boolean:
				v = a.Value(i)
			default:
				continue
			}
			if f, ok := v.(float64); ok && math.IsNaN(f) {
				s.NaNs++
				continue
			}
			if s.Min == nil {
				s.Min, s.Max = v, v
			}
			if l, _ := less(v, s.Min); l {
				s.Min = v
			}
			if l, _ := less(s.Max, v); l {
				s.Max = v
			}
		}
		c.stats[k] = s
	}
	return statsMemColumn{c}
}

// memArray is an ArraySource over bytes in memory.
type memArray struct {
	shape    []int64
	dtype    string
	elemSize int
	data     []byte
}

func (a *memArray) Shape() []int64 { return a.shape }
func (a *memArray) Dtype() string  { return a.dtype }
func (a *memArray) ElemSize() int  { return a.elemSize }
func (a *memArray) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(a.data).ReadAt(p, off)
}

// checkView finalizes v and checks that its size, a sequential read in
// 128 KiB pieces and reads of random pieces at random offsets all agree.
// It returns the file's bytes.
func checkView(t *testing.T, v View) []byte {
	t.Helper()
	est, wasExact := v.Size(), v.Exact()
	if est <= 0 {
		t.Fatalf("%s: size %d before Finalize", v.Ext(), est)
	}
	if err := v.Finalize(); err != nil {
		t.Fatalf("%s: Finalize: %v", v.Ext(), err)
	}
	size := v.Size()
	if !v.Exact() {
		t.Fatalf("%s: not exact after Finalize", v.Ext())
	}
	if wasExact && est != size {
		t.Fatalf("%s: exact size %d changed to %d", v.Ext(), est, size)
	}
	whole, err := io.ReadAll(io.NewSectionReader(v, 0, 1<<62))
	if err != nil {
		t.Fatalf("%s: sequential read: %v", v.Ext(), err)
	}
	if int64(len(whole)) != size {
		t.Fatalf("%s: size %d, sequential read gave %d bytes", v.Ext(), size, len(whole))
	}
	rng := rand.New(rand.NewPCG(1, uint64(size)))
	for range 200 {
		off := rng.Int64N(size + 10)
		p := make([]byte, rng.IntN(70000)+1)
		n, err := v.ReadAt(p, off)
		want := whole[min(off, size):min(off+int64(len(p)), size)]
		if n != len(want) || !bytes.Equal(p[:n], want) {
			t.Fatalf("%s: ReadAt(%d bytes, %d) = %d, %v: differs from the sequential read", v.Ext(), len(p), off, n, err)
		}
		if (n < len(p)) != (err == io.EOF) {
			t.Fatalf("%s: ReadAt(%d bytes, %d) = %d, %v", v.Ext(), len(p), off, n, err)
		}
	}
	// a small read at every unit boundary region
	for off := int64(0); off < size; off += size/50 + 1 {
		p := make([]byte, 3)
		n, _ := v.ReadAt(p, off)
		if !bytes.Equal(p[:n], whole[off:min(off+3, size)]) {
			t.Fatalf("%s: 3-byte read at %d differs", v.Ext(), off)
		}
	}
	return whole
}

// debianPython is Debian's interpreter, which has numpy, pandas and h5py
// (the python3 on PATH may not).
const debianPython = "/usr/bin/python3"

// needPython skips the test if Debian's python3 lacks the modules.
func needPython(t *testing.T, modules ...string) {
	t.Helper()
	for _, m := range modules {
		if err := exec.Command(debianPython, "-c", "import "+m).Run(); err != nil {
			t.Skipf("%s has no %s: %v", debianPython, m, err)
		}
	}
}
