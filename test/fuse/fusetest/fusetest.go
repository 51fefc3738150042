// Package fusetest mounts HDF5 files through the real kernel for the tests
// in test/fuse and in the DuckDB test module.
package fusetest

import (
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/h5core"
)

// Fixtures is where the shared HEP001 fixtures are, relative to test/fuse.
const Fixtures = "../../../shared/fixtures/hep001"

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

// FixtureFiles returns the .h5 files of the shared HEP001 fixtures that
// open (all but the deliberately unreadable ones), skipping the test when
// the fixtures are absent.
func FixtureFiles(t testing.TB) []string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(Fixtures, "*.h5"))
	if len(names) == 0 {
		t.Skip("shared fixtures not found at " + Fixtures)
	}
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
