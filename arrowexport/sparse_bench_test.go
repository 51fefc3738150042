package arrowexport

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/internal/sparsetest"
	"github.com/h5fs/h5fs/sparsecoo"
)

// sparseBenchFile returns a structured-chunk file of a 100000 x 1000
// float64 matrix with about 1.07e7 defined elements (chunks of 1000 full
// rows), made once in $SPARSE_BENCH_DIR (default: a temporary directory)
// together with its CSR arrays as npy files for the Python side of
// bench/sparse_bench.sh.
func sparseBenchFile(b *testing.B) string {
	b.Helper()
	dir := os.Getenv("SPARSE_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "sparse_bench.h5")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	m := sparsetest.RandomMatrix(100000, 1000, 0.11, 1)
	if len(m.Data) < 1e7 {
		b.Fatalf("only %d defined elements", len(m.Data))
	}
	if err := sparsetest.WriteNpy(dir, m); err != nil {
		b.Fatal(err)
	}
	if err := sparsetest.WriteFile(path+".tmp", m, 1000); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		b.Fatal(err)
	}
	return path
}

// openSparse opens the sparse dataset name of the file at path (index and
// selections) and returns it, its Matrix and what closes the file.
func openSparse(tb testing.TB, path, name string) (*h5core.Dataset, *sparsecoo.Matrix, func()) {
	tb.Helper()
	f, err := h5core.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	o, err := f.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		tb.Fatal(err)
	}
	m, err := sparsecoo.Open(ds)
	if err != nil {
		tb.Fatal(err)
	}
	return ds, m, func() { f.Close() }
}

// cpuTime returns the CPU time (user and system, every thread) the
// process has used: with the machine shared, CPU per operation says more
// than wall time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// drain reads a view from start to end in 1 MiB pieces.
func drain(b *testing.B, v View) int64 {
	if err := v.Finalize(); err != nil {
		b.Fatal(err)
	}
	n, err := io.CopyBuffer(io.Discard, io.NewSectionReader(v, 0, v.Size()), make([]byte, 1<<20))
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkSparseCOO reads the COO table (row, col, value columns, unit
// by unit as the CSV, Arrow and Parquet views do) of the 1.07e7-element
// matrix from a fresh open, and reports defined elements/s.
func BenchmarkSparseCOO(b *testing.B) {
	path := sparseBenchFile(b)
	b.ResetTimer()
	cpu0 := cpuTime(b)
	var nnz uint64
	for range b.N {
		_, m, done := openSparse(b, path, "/X")
		t, err := SparseCOOTable(m)
		if err != nil {
			b.Fatal(err)
		}
		nnz = m.NNZ()
		rows, unit, err := checkTable(t)
		if err != nil {
			b.Fatal(err)
		}
		for u := range numUnits(rows, unit) {
			start, n := unitRange(u, unit, rows)
			arrs, err := t.readColumns(start, n)
			if err != nil {
				b.Fatal(err)
			}
			releaseAll(arrs)
		}
		done()
	}
	b.ReportMetric(float64(nnz)*float64(b.N)/b.Elapsed().Seconds(), "elements/s")
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkSparseCSR renders csr/indptr.npy, csr/indices.npy and
// csr/data.npy of the 1e7-element matrix from a fresh open, and reports
// defined elements/s.
func BenchmarkSparseCSR(b *testing.B) {
	path := sparseBenchFile(b)
	b.ResetTimer()
	cpu0 := cpuTime(b)
	var nnz uint64
	for range b.N {
		_, m, done := openSparse(b, path, "/X")
		nnz = m.NNZ()
		p, i, d, err := SparseCSR(m)
		if err != nil {
			b.Fatal(err)
		}
		for _, src := range []ArraySource{p, i, d} {
			v, err := NewNpyView(src)
			if err != nil {
				b.Fatal(err)
			}
			drain(b, v)
		}
		done()
	}
	b.ReportMetric(float64(nnz)*float64(b.N)/b.Elapsed().Seconds(), "elements/s")
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkSparseStored is the ceiling of the sparse views: it reads
// every stored chunk of the 1.07e7-element matrix from a fresh open —
// both sections read, section 0 checksummed and its selection decoded,
// the values checked against it — on every core (chunks in parallel),
// rendering nothing, and reports defined elements/s.
func BenchmarkSparseStored(b *testing.B) {
	path := sparseBenchFile(b)
	b.ResetTimer()
	cpu0 := cpuTime(b)
	var nnz atomic.Uint64
	for range b.N {
		nnz.Store(0)
		f, err := h5core.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		o, err := f.Open("/X")
		if err != nil {
			b.Fatal(err)
		}
		ds, err := o.Dataset()
		if err != nil {
			b.Fatal(err)
		}
		chunks, err := ds.SparseChunks()
		if err != nil {
			b.Fatal(err)
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make([]error, runtime.GOMAXPROCS(0))
		for w := range errs {
			wg.Go(func() {
				for i := next.Add(1) - 1; i < int64(len(chunks)); i = next.Add(1) - 1 {
					c, err := ds.ReadSparseChunk(chunks[i], true)
					if err != nil {
						errs[w] = err
						return
					}
					nnz.Add(c.NNZ())
				}
			})
		}
		wg.Wait()
		f.Close()
		if err := errors.Join(errs...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(nnz.Load())*float64(b.N)/b.Elapsed().Seconds(), "elements/s")
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkSparseText renders coo.csv and matrix.mtx of the 1.07e7-element
// matrix from a fresh open, sizing pass included, and reports defined
// elements/s.
func BenchmarkSparseText(b *testing.B) {
	path := sparseBenchFile(b)
	for _, name := range []string{"coo.csv", "matrix.mtx"} {
		b.Run(name, func(b *testing.B) {
			var nnz uint64
			for range b.N {
				_, m, done := openSparse(b, path, "/X")
				nnz = m.NNZ()
				var v View
				if name == "coo.csv" {
					t, err := SparseCOOTable(m)
					if err != nil {
						b.Fatal(err)
					}
					v, err = NewCSVView(t, Options{})
					if err != nil {
						b.Fatal(err)
					}
				} else {
					var err error
					if v, err = NewMatrixMarketView(m); err != nil {
						b.Fatal(err)
					}
				}
				drain(b, v)
				done()
			}
			b.ReportMetric(float64(nnz)*float64(b.N)/b.Elapsed().Seconds(), "elements/s")
		})
	}
}
