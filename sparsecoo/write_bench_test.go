package sparsecoo

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/internal/sparsetest"
)

// Sizes of BenchmarkSparseWrite (issue 9 item 6): 1e6 random elements
// of a 1e5 x 1e5 float64 matrix (chunks of 100 full rows) defined in
// batches of 1e4.
const (
	benchSide      = 100000
	benchElements  = 1000000
	benchBatch     = 10000
	benchChunkRows = 100
)

// sparseWriteBench returns the benchmark's elements and writes, once, an
// empty 1e5 x 1e5 structured-chunk dataset "/X" (empty.h5) and the
// batches as CSV lines "row,col,value" (batches/NNNN.csv) in
// $SPARSE_WRITE_BENCH_DIR (default: a temporary directory), for the
// mount and h5py sides of bench/sparse_write_bench.sh.
func sparseWriteBench(b *testing.B) (dir string, rows, cols []uint64, vals []float64) {
	b.Helper()
	dir = os.Getenv("SPARSE_WRITE_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	rows, cols, vals = sparsetest.RandomElements(benchElements, benchSide, benchSide, 1)
	empty := filepath.Join(dir, "empty.h5")
	if _, err := os.Stat(empty); err == nil {
		return dir, rows, cols, vals
	}
	m := &sparsetest.Matrix{Rows: benchSide, Cols: benchSide, Indptr: make([]int64, benchSide+1)}
	if err := sparsetest.WriteFile(empty+".tmp", m, benchChunkRows); err != nil {
		b.Fatal(err)
	}
	bd := filepath.Join(dir, "batches")
	if err := os.MkdirAll(bd, 0o755); err != nil {
		b.Fatal(err)
	}
	for k := 0; k < benchElements/benchBatch; k++ {
		var csv []byte
		for i := k * benchBatch; i < (k+1)*benchBatch; i++ {
			csv = strconv.AppendUint(csv, rows[i], 10)
			csv = append(csv, ',')
			csv = strconv.AppendUint(csv, cols[i], 10)
			csv = append(csv, ',')
			csv = strconv.AppendFloat(csv, vals[i], 'g', -1, 64)
			csv = append(csv, '\n')
		}
		if err := os.WriteFile(filepath.Join(bd, fmt.Sprintf("%04d.csv", k)), csv, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Rename(empty+".tmp", empty); err != nil {
		b.Fatal(err)
	}
	return dir, rows, cols, vals
}

// BenchmarkSparseWrite defines the benchmark's 1e6 elements in a fresh
// copy of the empty dataset through a Writer, one Commit per batch of
// 1e4, and reports defined elements/s, elements per CPU second of the
// process (user + system: on a shared machine wall time also counts
// waiting for a core) and the file's final size.
func BenchmarkSparseWrite(b *testing.B) {
	dir, rows, cols, vals := sparseWriteBench(b)
	empty, err := os.ReadFile(filepath.Join(dir, "empty.h5"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "x.h5")
	var size int64
	cpu0 := cpuSeconds(b)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if err := os.WriteFile(path, empty, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rw, err := h5core.OpenRW(path)
		if err != nil {
			b.Fatal(err)
		}
		w, err := NewWriter(rw, "/X")
		if err != nil {
			b.Fatal(err)
		}
		coords := make([]uint64, 0, 2*benchBatch)
		values := make([]byte, 0, 8*benchBatch)
		for k := 0; k < benchElements; k += benchBatch {
			coords, values = coords[:0], values[:0]
			for i := k; i < k+benchBatch; i++ {
				coords = append(coords, rows[i], cols[i])
				values = binary.LittleEndian.AppendUint64(values, math.Float64bits(vals[i]))
			}
			if err := w.Define(coords, values); err != nil {
				b.Fatal(err)
			}
			if err := w.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		if err := rw.Close(); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		size = fi.Size()
	}
	b.ReportMetric(float64(b.N*benchElements)/b.Elapsed().Seconds(), "elements/s")
	b.ReportMetric(float64(b.N*benchElements)/(cpuSeconds(b)-cpu0), "elements/cpu-s")
	b.ReportMetric(float64(size), "file-bytes")
}

// cpuSeconds returns the user and system CPU time the process used so far.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
