package fuse_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// smallView is the largest content of a view whose size stat must show
// exactly before the view is first opened.
const smallView = 256 << 10

// TestStatBeforeOpen stats every file of a mount before opening it, as
// ls -l, du, rsync and tar do, then reads it: the size shown is never
// below the bytes read and exact for small files, and where the data's
// widths are known before the data pass (columns with CHUNK_MINMAX
// indexes) at most 1.5 times the bytes read. Its file
// (testdata/statsizes.py) has CSV, Arrow and Parquet views of such
// columns too big to size at the first stat, and small tables and
// datasets; the repo's own corpus is mounted too (its bigger views have
// no indexes: their bounds are only logged).
func TestStatBeforeOpen(t *testing.T) {
	name := filepath.Join(t.TempDir(), "statsizes.h5")
	if out, err := exec.Command("/usr/bin/python3", "testdata/statsizes.py", name).CombinedOutput(); err != nil {
		t.Fatalf("statsizes.py: %v\n%s", err, out)
	}
	own, err := filepath.Glob(filepath.Join(fusetest.OwnCorpus, "*.h5"))
	if err != nil || len(own) == 0 {
		t.Fatalf("own corpus: %v, %d files", err, len(own))
	}
	for _, h5 := range append([]string{name}, own...) {
		mp := fusetest.Mount(t, h5, nil)
		var files, bounded int
		err := filepath.WalkDir(mp, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			st, err := os.Lstat(p)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil // a view of a bad object (the own corpus has some): EIO
			}
			files++
			shown, read := st.Size(), int64(len(b))
			rel := filepath.Base(h5) + ":" + strings.TrimPrefix(p, mp)
			if shown != read {
				bounded++
				t.Logf("%s: stat before open %d bytes, read %d (%.2fx)", rel, shown, read, float64(shown)/float64(read))
			}
			switch {
			case shown < read || (h5 == name && 2*shown > 3*read):
				t.Errorf("%s: stat before open %d bytes, read %d", rel, shown, read)
			case read <= smallView && shown != read:
				t.Errorf("%s: stat before open %d bytes, read %d: not exact for a small file", rel, shown, read)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d files, %d of them shown with a bound before the first open", filepath.Base(h5), files, bounded)
	}
}
