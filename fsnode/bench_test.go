package fsnode

import (
	"io"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// BenchmarkListP5 does what a first ls -lR of a fresh mount asks of the
// tree, in process: every directory listed, the attributes of every entry
// but the hidden ones (which READDIRPLUS leaves out: see dirHandle), over
// bench/fuse_bench.sh's P5 file (1000 tables of 20 columns) in $BENCH_DIR
// (default /tmp/h5fs-bench).
func BenchmarkListP5(b *testing.B) {
	bdir := os.Getenv("BENCH_DIR")
	if bdir == "" {
		bdir = "/tmp/h5fs-bench"
	}
	name := filepath.Join(bdir, "p5.h5")
	if _, err := os.Stat(name); err != nil {
		b.Skipf("%v: run bench/fuse_bench.sh once to make the benchmark files", err)
	}
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	for b.Loop() {
		f, err := h5core.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		tr, err := New(f, Options{Log: log.New(io.Discard, "", 0)})
		if err != nil {
			b.Fatal(err)
		}
		var walk func(d *dir)
		walk = func(d *dir) {
			es, err := tr.children(d)
			if err != nil {
				b.Fatal(err)
			}
			tr.presize(es)
			for _, e := range es {
				if hidden(e.name) {
					continue
				}
				var a fuse.Attr
				tr.attr(e, &a)
				if e.dir != nil {
					walk(e.dir)
				}
			}
		}
		walk(tr.root)
		f.Close()
	}
}
