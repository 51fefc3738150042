package fsnode

import (
	"encoding/json"
	"errors"
	"io"
	"log"
	"strings"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

func TestEscapeName(t *testing.T) {
	for in, want := range map[string]string{
		"energy":     "energy",
		"..":         "%2E.",
		".":          "%2E",
		".hidden":    "%2Ehidden",
		"a.b":        "a.b",
		"50%":        "50%25",
		"a\x00b\nc":  "a%00b%0Ac",
		"del\x7f":    "del%7F",
		"\xff\xfeok": "%FF%FEok",
		"Größe µm":   "Größe µm",
		"a/b":        "a%2Fb",
		"":           "%",
		"%":          "%25",
	} {
		if got := EscapeName(in); got != want {
			t.Errorf("EscapeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOpen resolves paths through the tree of the sample file, as
// `h5fs cat` does: .meta.json everywhere, files of every kind, errors for
// what is not there.
func TestOpen(t *testing.T) {
	tree := openTree(t, "../cmd/h5fs/sample/sample.h5")
	n := 0
	var walk func(d *dir, p string)
	walk = func(d *dir, p string) {
		es, err := tree.children(d)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, e := range es {
			switch {
			case e.dir != nil:
				walk(e.dir, p+e.name+"/")
			case e.mode() == syscall.S_IFREG:
				n++
				v, err := tree.Open(p + e.name)
				if err != nil {
					t.Errorf("Open(%q): %v", p+e.name, err)
					continue
				}
				b, err := io.ReadAll(io.NewSectionReader(v, 0, v.Size()))
				if err != nil || int64(len(b)) != v.Size() || !v.Exact() {
					t.Errorf("%s: read %d of %d bytes (exact %v): %v", p+e.name, len(b), v.Size(), v.Exact(), err)
				}
				if e.name == metaName && !json.Valid(b) {
					t.Errorf("%s: not JSON", p+e.name)
				}
			}
		}
	}
	walk(tree.root, "")
	if n < 2 {
		t.Errorf("only %d files in the sample's tree", n)
	}
	for p, want := range map[string]error{"nope": syscall.ENOENT, ".meta.json/x": syscall.ENOTDIR, "": syscall.ENOENT} {
		if _, err := tree.Open(p); !errors.Is(err, want) {
			t.Errorf("Open(%q) = %v, want %v", p, err, want)
		}
	}
}

// TestNames checks escaped names, soft links and a hard-link cycle.
func TestNames(t *testing.T) {
	tree := openTree(t, "testdata/names.h5")
	got := map[string]string{}
	var walk func(d *dir, p string)
	walk = func(d *dir, p string) {
		es, err := tree.children(d)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, e := range es {
			switch {
			case e.dir != nil:
				got[p+e.name] = "dir"
				walk(e.dir, p+e.name+"/")
			case e.mode() == syscall.S_IFREG:
				got[p+e.name] = "file"
			default:
				got[p+e.name] = "-> " + tree.linkTarget(e)
			}
		}
	}
	walk(tree.root, "")
	for p, want := range map[string]string{
		"%2E..raw":       "file",
		"%2Ehidden.npy":  "file",
		"50%25.raw":      "file",
		"tab%09here.raw": "file",
		"café.raw":       "file",
		"a":              "dir",
		"a/x.raw":        "file",
		"a/x.csv":        "file",
		"a/x.npy":        "file",
		"café.csv":       "file",
		"softx.csv":      "file",
		"a/up":           "-> ..",
		"soft":           "-> a",
		"softx.raw":      "file",
	} {
		if got[p] != want {
			t.Errorf("%s: %q, want %q", p, got[p], want)
		}
	}
	if v, err := tree.Open("a/x.raw"); err != nil || v.Size() != 16 {
		t.Errorf("a/x.raw: %v", err)
	}
	v, err := tree.Open("a/x.csv")
	if err != nil {
		t.Fatalf("a/x.csv: %v", err)
	}
	if b, err := io.ReadAll(io.NewSectionReader(v, 0, v.Size())); string(b) != "x\n0\n1\n2\n3\n" {
		t.Errorf("a/x.csv: %q, %v", b, err)
	}
}

// TestGuard: a panic while listing a directory, making a view or sizing
// it becomes an error of that object alone.
func TestGuard(t *testing.T) {
	tree := openTree(t, "../cmd/h5fs/sample/sample.h5")
	d := &dir{list: func() ([]entry, error) { panic("listing") }}
	if _, err := tree.children(d); err == nil || !strings.Contains(err.Error(), "listing") {
		t.Errorf("panicking listing: %v", err)
	}
	bad := &file{path: "x", newView: func() (View, error) { panic("view") }}
	if _, err := tree.get(bad); err == nil {
		t.Error("panicking view made no error")
	}
	sizing := &file{path: "y", newView: func() (View, error) { return panicView{}, nil }}
	if _, err := tree.finalize(sizing); err == nil {
		t.Error("panicking Finalize made no error")
	}
	if es, err := tree.children(tree.root); err != nil || len(es) == 0 {
		t.Errorf("the rest of the tree: %d entries, %v", len(es), err)
	}
}

type panicView struct{ bytesView }

func (panicView) Exact() bool     { return false }
func (panicView) Finalize() error { panic("sizing") }

// openTree returns the tree of the HDF5 file at path, closed when the test
// ends.
func openTree(t *testing.T, path string) *Tree {
	t.Helper()
	f, err := h5core.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	tree, err := New(f, Options{Log: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}
