package table

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// appendBenchTable makes bench/append_bench.sh's empty table (P6) and
// 10k rows of its five columns, and opens the file read-write.
func appendBenchTable(b *testing.B) (*h5core.RW, [][]byte) {
	dir := b.TempDir()
	if out, err := exec.Command("/usr/bin/python3", "../bench/append_bench_gen.py", dir, "10000", "10000").CombinedOutput(); err != nil {
		b.Fatalf("append_bench_gen.py: %v\n%s", err, out)
	}
	var cols [][]byte
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		raw, err := os.ReadFile(filepath.Join(dir, n+".raw"))
		if err != nil {
			b.Fatal(err)
		}
		cols = append(cols, raw)
	}
	rw, err := h5core.OpenRW(filepath.Join(dir, "empty.h5"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rw.Close() })
	return rw, cols
}

// BenchmarkAppendCommit is one commit of a read-write mount's append to
// bench/append_bench.sh's table (P6): open the table as the writer sees
// it, append 10k rows to its five columns, commit. The file grows by 10k
// rows per iteration.
func BenchmarkAppendCommit(b *testing.B) {
	rw, cols := appendBenchTable(b)
	b.SetBytes(int64(len(cols[0]) + len(cols[1]) + len(cols[2]) + len(cols[3]) + len(cols[4])))
	for b.Loop() {
		tb, err := Open(rw.File(), "/t", Lenient)
		if err != nil {
			b.Fatal(err)
		}
		tx, err := rw.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if err := tb.Append(tx, cols); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitFloor is the floor of a durable commit on P6's table: a
// transaction that writes nothing but NROWS (its value unchanged),
// committed — the journal, the overwrite and their syncs, and nothing
// else. bench/append_bench.sh sets each batch case against it.
func BenchmarkCommitFloor(b *testing.B) {
	rw, _ := appendBenchTable(b)
	o, err := rw.File().Open("/t")
	if err != nil {
		b.Fatal(err)
	}
	a, err := o.Attribute("NROWS")
	if err != nil {
		b.Fatal(err)
	}
	raw := append([]byte(nil), a.Raw()...)
	for b.Loop() {
		tx, err := rw.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if err := tx.SetAttribute("/t", "NROWS", raw); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}
