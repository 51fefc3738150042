package fuse_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestDirMountIdleAndCache checks two promises of a directory mount that
// TestDirMount does not: a file unused for longer than the Idle option is
// closed (no descriptor left on it) and opened again on the next look
// inside, and the sizing cache works per file, so a second mount of the
// directory shows a big CSV view's exact size at its first stat, before
// any open.
func TestDirMountIdleAndCache(t *testing.T) {
	dir := t.TempDir()
	// 300,000 float64 values (2.4 MB stored): too many to size at the
	// first stat, so that only the cache can make that stat exact.
	script := `
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f["big"] = np.arange(300000, dtype="<f8") / 3
    f["small"] = np.arange(5, dtype="<i4")
`
	if out, err := exec.Command(python, "-c", script, filepath.Join(dir, "a.h5")).CombinedOutput(); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	cacheDir := t.TempDir()
	newCache := func() *arrowexport.Cache {
		c, err := arrowexport.NewCache(cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	const idle = 300 * time.Millisecond
	mp, d := fusetest.MountDir(t, dir, fsnode.DirOptions{Idle: idle, Tree: fsnode.Options{Cache: newCache()}}, nil)
	big := filepath.Join(mp, "a.h5", "big.csv")
	first, err := os.Stat(big)
	if err != nil {
		t.Fatal(err)
	}
	exact := int64(len(readFile(t, big)))
	if first.Size() == exact {
		t.Fatalf("big.csv's first stat was already exact (%d bytes): the cache is not what makes the second one exact", exact)
	}
	if st, err := os.Stat(big); err != nil || st.Size() != exact {
		t.Errorf("big.csv after reading: size %v (%v), want %d", st.Size(), err, exact)
	}
	opened := d.Opened()
	if opened == 0 || openUnder(t, dir) == 0 {
		t.Fatalf("reading a.h5's views opened %d files, %d descriptors on %s", opened, openUnder(t, dir), dir)
	}
	deadline := time.Now().Add(20 * idle)
	for openUnder(t, dir) != 0 && time.Now().Before(deadline) {
		time.Sleep(idle / 3)
	}
	if n := openUnder(t, dir); n != 0 {
		t.Errorf("%d descriptors still open on %s after %v unused; want the idle file closed", n, dir, 20*idle)
	}
	if got := readFile(t, filepath.Join(mp, "a.h5", "small.csv")); got != "small\n0\n1\n2\n3\n4\n" {
		t.Errorf("small.csv after the idle close = %q", got)
	}
	if d.Opened() <= opened {
		t.Errorf("a look inside a.h5 after its idle close opened no file (%d opens before, %d after)", opened, d.Opened())
	}

	mp2, _ := fusetest.MountDir(t, dir, fsnode.DirOptions{Tree: fsnode.Options{Cache: newCache()}}, nil)
	if st, err := os.Stat(filepath.Join(mp2, "a.h5", "big.csv")); err != nil || st.Size() != exact {
		t.Errorf("second mount: big.csv's first stat %v (%v), want the cached exact %d", st.Size(), err, exact)
	}
}
