package fusetest

import (
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/h5fs/h5fs/fsnode"
)

// MakeRuns writes n small run files (and the odd ones beside them, see
// test/fuse/testdata/make_runs.py) into a new temporary directory and
// returns it.
func MakeRuns(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(repoRoot, "test", "fuse", "testdata", "make_runs.py")
	if out, err := exec.Command("/usr/bin/python3", script, dir, strconv.Itoa(n)).CombinedOutput(); err != nil {
		t.Fatalf("make_runs.py: %v\n%s", err, out)
	}
	return dir
}

// MountDir mounts the directory of HDF5 files dir at a new temporary
// directory and returns the mount point and the tree; the mount goes away
// when the test ends. Log lines go to logw (nil: the test log).
func MountDir(t testing.TB, dir string, opt fsnode.DirOptions, logw io.Writer) (string, *fsnode.DirTree) {
	t.Helper()
	var d *fsnode.DirTree
	mp := mountDirTree(t, func(opt fsnode.DirOptions) (dt *fsnode.DirTree, err error) {
		d, err = fsnode.NewDir(dir, opt)
		return d, err
	}, opt, logw)
	return mp, d
}

// mountDirTree mounts the tree that newTree makes with options opt.
func mountDirTree(t testing.TB, newTree func(fsnode.DirOptions) (*fsnode.DirTree, error), opt fsnode.DirOptions, logw io.Writer) string {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse: kernel mount tests need FUSE")
	}
	if os.Geteuid() != 0 {
		t.Skip("kernel mount tests need root (DirectMount)")
	}
	if logw == nil {
		logw = testWriter{t}
	}
	opt.Tree.Log = log.New(logw, "", 0)
	d, err := newTree(opt)
	if err != nil {
		t.Fatal(err)
	}
	mp := t.TempDir()
	server, err := fsnode.MountDir(d, mp, fsnode.MountOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := server.Unmount(); err != nil {
			t.Errorf("unmount %s: %v", mp, err)
		}
		server.Wait()
		d.Close()
	})
	return mp
}

// MountFile mounts the HDF5 file name as `h5fs mount` does (following its
// changes) at a new temporary directory and returns the mount point; the
// mount goes away when the test ends.
func MountFile(t testing.TB, name string, logw io.Writer) string {
	t.Helper()
	return mountDirTree(t, func(opt fsnode.DirOptions) (*fsnode.DirTree, error) { return fsnode.NewFileDir(name, opt) }, fsnode.DirOptions{}, logw)
}
