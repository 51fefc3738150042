package fuse_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestDirMount mounts a directory of 1,000 small run files (and a few odd
// ones) with at most 8 open at once: listing the mount opens no file; a
// broken file is one EIO directory and one log line; external links
// between files of the mount are symbolic links inside it; every file
// reads right although files are closed and reopened all along.
func TestDirMount(t *testing.T) {
	const copies, maxOpen = 1000, 8
	dir := fusetest.MakeRuns(t, 3)
	b, err := os.ReadFile(filepath.Join(dir, "run0002.h5"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range copies {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("copy%04d.h5", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logb := &syncWriter{w: &bytes.Buffer{}}
	mp, d := fusetest.MountDir(t, dir, fsnode.DirOptions{MaxOpen: maxOpen}, logb)

	es, err := os.ReadDir(mp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		if _, err := e.Info(); err != nil {
			t.Errorf("stat %s: %v", e.Name(), err)
		}
		if e.Name() == ".meta.json" {
			continue
		}
		if !e.IsDir() {
			t.Errorf("%s is not a directory", e.Name())
		}
		names = append(names, e.Name())
	}
	if len(names) != copies+6 || !slices.Contains(names, "sub") || slices.Contains(names, "notes.txt") || !slices.Contains(names, "ub.h5") {
		t.Errorf("mount lists %d names (%v…); want %d: the HDF5 files and sub/, no notes.txt", len(es), names[:5], copies+6)
	}
	// each folder's .meta.json lists what it holds
	for _, f := range []struct {
		dir, path string
		names     []string
	}{{mp, "", names}, {filepath.Join(mp, "sub"), "sub", []string{"deep.hdf5"}}} {
		b, err := os.ReadFile(filepath.Join(f.dir, ".meta.json"))
		var m struct {
			Path, Kind string
			Links      []struct {
				Name     string
				LinkType string `json:"link_type"`
			}
		}
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		var listed []string
		for _, l := range m.Links {
			listed = append(listed, l.Name)
			if want := map[bool]string{true: "folder", false: "file"}[l.Name == "sub"]; l.LinkType != want {
				t.Errorf("%s/.meta.json: %s is a %q, want %q", f.dir, l.Name, l.LinkType, want)
			}
		}
		if err != nil || m.Path != f.path || m.Kind != "folder" || !slices.Equal(listed, f.names) {
			t.Errorf("%s/.meta.json: %v: path %q, kind %q, %d links; want %q, folder, %d", f.dir, err, m.Path, m.Kind, len(listed), f.path, len(f.names))
		}
	}
	if n := d.Opened(); n != 0 {
		t.Errorf("listing the mount and reading its .meta.json opened %d files; want none", n)
	}

	if _, err := os.ReadDir(filepath.Join(mp, "bad.h5")); !errors.Is(err, syscall.EIO) {
		t.Errorf("ls bad.h5: %v; want EIO", err)
	}
	os.ReadDir(filepath.Join(mp, "bad.h5"))
	if n := strings.Count(logb.String(), "bad.h5"); n != 1 {
		t.Errorf("log names bad.h5 %d times; want once:\n%s", n, logb.String())
	}

	for _, c := range []struct{ link, want string }{
		{"run0001.h5/calib", "../run0000.h5/events"},
		{"run0001.h5/links/deep", "../../sub/deep.hdf5/events/energy"},
	} {
		if got, err := os.Readlink(filepath.Join(mp, c.link)); err != nil || got != c.want {
			t.Errorf("readlink %s = %q, %v; want %q", c.link, got, err, c.want)
		}
	}
	// A link to a file outside the mount is no symbolic link (it would
	// lead out of the mount): an entry that reads as EIO.
	outside := filepath.Join(mp, "run0001.h5/outside")
	if got, err := os.Readlink(outside); err == nil {
		t.Errorf("an external link out of the mount shows as a symbolic link to %q; want an EIO entry", got)
	}
	if _, err := os.ReadFile(outside); !errors.Is(err, syscall.EIO) {
		t.Errorf("reading an external link out of the mount: %v; want EIO", err)
	}
	viaLink := readFile(t, filepath.Join(mp, "run0001.h5/calib/energy.csv"))
	if direct := readFile(t, filepath.Join(mp, "run0000.h5/events/energy.csv")); viaLink != direct || direct == "" {
		t.Errorf("energy.csv through the external link:\n%s\nwant\n%s", viaLink, direct)
	}
	if got := readFile(t, filepath.Join(mp, "sub/deep.hdf5/events/run.csv")); !strings.HasPrefix(got, "run\n9000\n") {
		t.Errorf("sub/deep.hdf5/events/run.csv = %q", got)
	}
	if got := readFile(t, filepath.Join(mp, "ub.h5/events/run.csv")); !strings.HasPrefix(got, "run\n9001\n") {
		t.Errorf("ub.h5/events/run.csv (after a user block) = %q", got)
	}

	// Every copy, twice: files are closed and opened again, never more
	// than maxOpen descriptors at once; an open file survives its close.
	held, err := os.Open(filepath.Join(mp, "copy0000.h5/events/energy.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	want := readFile(t, filepath.Join(mp, "run0002.h5/events/energy.csv"))
	for pass := range 2 {
		for i := range copies {
			p := filepath.Join(mp, fmt.Sprintf("copy%04d.h5/events/energy.csv", i))
			if got := readFile(t, p); got != want {
				t.Fatalf("pass %d: %s = %q; want %q", pass, p, got, want)
			}
			if i%100 == 0 {
				if n := openUnder(t, dir); n > maxOpen {
					t.Errorf("%d descriptors open on the mounted directory; want at most %d", n, maxOpen)
				}
			}
		}
	}
	if n := d.Opened(); n < 2*copies {
		t.Errorf("%d opens for two passes over %d files with %d open at most", n, copies, maxOpen)
	}
	var got bytes.Buffer
	if _, err := got.ReadFrom(held); err != nil || got.String() != want {
		t.Errorf("a file held open across its HDF5 file's close reads %q, %v; want %q", got.String(), err, want)
	}
}

// readFile returns a file's content, failing the test if it cannot be read.
func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Error(err)
	}
	return string(b)
}

// openUnder counts this process's descriptors on files below dir.
func openUnder(t *testing.T, dir string) int {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if p, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(p, dir+"/") {
			n++
		}
	}
	return n
}

// syncWriter serializes writes to w (the mount logs from many goroutines).
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}
