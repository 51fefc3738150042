package h5core

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// benchFile opens a file made by bench/h5core_bench.sh in $BENCH_DIR
// (default /tmp/h5fs-bench), or skips.
func benchFile(b *testing.B, name string) *Dataset {
	dir := os.Getenv("BENCH_DIR")
	if dir == "" {
		dir = "/tmp/h5fs-bench"
	}
	f, err := Open(filepath.Join(dir, name))
	if err != nil {
		b.Skipf("%v: run bench/h5core_bench.sh once to make the benchmark files", err)
	}
	b.Cleanup(func() { f.Close() })
	o, err := f.Open("/x")
	if err != nil {
		b.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

func benchmarkDumpPacked(b *testing.B, name string) {
	ds := benchFile(b, name)
	b.SetBytes(ds.Size())
	for b.Loop() {
		if err := ds.DumpPacked(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDumpPackedGzipShuffle streams 1e8 float64 stored in 1e6-element
// chunks with gzip 4 + shuffle (decoded in parallel).
func BenchmarkDumpPackedGzipShuffle(b *testing.B) { benchmarkDumpPacked(b, "bench_gzip_shuffle.h5") }

// BenchmarkDumpPackedPlain streams 1e8 contiguous float64.
func BenchmarkDumpPackedPlain(b *testing.B) { benchmarkDumpPacked(b, "bench_plain.h5") }

// BenchmarkReadAtGzipShuffle reads the gzip + shuffle dataset the way a
// FUSE mount does: sequential 1 MiB ReadAt calls, each a chunk's eighth
// (decoded ahead in the background).
func BenchmarkReadAtGzipShuffle(b *testing.B) {
	ds := benchFile(b, "bench_gzip_shuffle.h5")
	b.SetBytes(ds.Size())
	p := make([]byte, 1<<20)
	for b.Loop() {
		for off := int64(0); off < ds.Size(); off += int64(len(p)) {
			if _, err := ds.ReadAt(p, off); err != nil && err != io.EOF {
				b.Fatal(err)
			}
		}
	}
}
