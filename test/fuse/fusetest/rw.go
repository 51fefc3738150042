package fusetest

import (
	"errors"
	"io"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/h5core"
)

// CopyFile copies a test file into a fresh temporary directory and
// returns the copy's name: what read-write tests mount.
func CopyFile(t testing.TB, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// MountRW mounts the HDF5 file name read-write (as `h5fs mount -o rw`
// does) at a new temporary directory and returns it with a function that
// unmounts it and closes the file, releasing its lock; the test's end
// does that too if it was not done.
func MountRW(t testing.TB, name string, logw io.Writer) (string, func()) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse: kernel mount tests need FUSE")
	}
	if os.Geteuid() != 0 {
		t.Skip("kernel mount tests need root (DirectMount)")
	}
	rw, err := h5core.OpenRW(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := rw.Snapshot(h5core.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if logw == nil {
		logw = testWriter{t}
	}
	tree, err := fsnode.New(f, fsnode.Options{Log: log.New(logw, "", 0), RW: rw})
	if err != nil {
		t.Fatal(err)
	}
	mp := t.TempDir()
	server, err := fsnode.Mount(tree, mp)
	if err != nil {
		t.Fatal(err)
	}
	done := false
	unmount := func() {
		if done {
			return
		}
		done = true
		if err := server.Unmount(); err != nil {
			t.Errorf("unmount %s: %v", mp, err)
		}
		server.Wait()
		tree.PendingRows()
		if err := rw.Close(); err != nil {
			t.Errorf("close %s: %v", name, err)
		}
	}
	t.Cleanup(unmount)
	return mp, unmount
}

// Append appends text to the file at name in one write, as `cat >> name`
// does, and closes it: the close is where a read-write mount commits.
func Append(name string, text []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, werr := f.Write(text)
	cerr := f.Close()
	return errors.Join(werr, cerr)
}
