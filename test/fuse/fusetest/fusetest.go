// Package fusetest mounts HDF5 files through the real kernel for the tests
// in test/fuse and in the DuckDB test module.
package fusetest

import (
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/h5core"
)

// The HEP001 corpora the kernel tests mount: the repo's own (made by
// table/testdata/gen.py, always there) and the shared fixtures beside the
// repository (used when present).
var (
	repoRoot = func() string {
		_, file, _, _ := runtime.Caller(0)
		return filepath.Join(filepath.Dir(file), "..", "..", "..")
	}()
	OwnCorpus = filepath.Join(repoRoot, "table", "testdata")
	Fixtures  = filepath.Join(repoRoot, "..", "shared", "fixtures", "hep001")
)

// Mount mounts the HDF5 file name at a new temporary directory and returns
// it; the mount goes away when the test ends. It skips the test when FUSE
// mounts cannot be made here. Log lines of the file system go to logw
// (nil: the test log).
func Mount(t testing.TB, name string, logw io.Writer) string {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse: kernel mount tests need FUSE")
	}
	if os.Geteuid() != 0 {
		t.Skip("kernel mount tests need root (DirectMount)")
	}
	f, err := h5core.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if logw == nil {
		logw = testWriter{t}
	}
	tree, err := fsnode.New(f, fsnode.Options{Log: log.New(logw, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	mp := t.TempDir()
	server, err := fsnode.Mount(tree, mp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := server.Unmount(); err != nil {
			t.Errorf("unmount %s: %v", mp, err)
		}
		server.Wait()
	})
	return mp
}

// FixtureFiles returns the .h5 files of the HEP001 corpora that open (all
// but the deliberately unreadable ones): the repo's own, and the shared
// fixtures when they are there (the test log says when they are not).
func FixtureFiles(t testing.TB) []string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(OwnCorpus, "*.h5"))
	shared, _ := filepath.Glob(filepath.Join(Fixtures, "*.h5"))
	if len(shared) == 0 {
		t.Log("shared fixtures not found at " + Fixtures + ": testing the repo's own corpus only")
	}
	names = append(names, shared...)
	var out []string
	for _, n := range names {
		if f, err := h5core.Open(n); err == nil {
			f.Close()
			out = append(out, n)
		}
	}
	return out
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
