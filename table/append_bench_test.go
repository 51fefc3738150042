package table

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// BenchmarkAppendCommit is one commit of a read-write mount's append to
// bench/append_bench.sh's table (P6): open the table as the writer sees
// it, append 10k rows to its five columns, commit. The file grows by 10k
// rows per iteration.
func BenchmarkAppendCommit(b *testing.B) {
	const batch = 10000
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
	defer rw.Close()
	b.SetBytes(int64(batch * (8 + 8 + 4 + 4 + 1)))
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
