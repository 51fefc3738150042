package arrowexport

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestCacheLog stores entries through one Cache and reads them through
// another (a later mount), including after the log is damaged.
func TestCacheLog(t *testing.T) {
	dir := t.TempDir()
	key := func(size int64, obj string) string { return FileID{Path: "/f.h5", Size: size}.Key(obj) }
	c1, _ := NewCache(dir)
	for _, obj := range []string{"/a", "/b", "/c"} {
		if err := (Options{Cache: c1, Key: key(1, obj)}).store("k", csvLayout{Starts: []int64{1, int64(len(obj))}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := (Options{Cache: c1, Key: key(2, "/a")}).store("k", csvLayout{Starts: []int64{7}}); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*"+logSuffix))
	if len(logs) != 2 {
		t.Fatalf("%d logs for 2 file identities: %v", len(logs), logs)
	}

	load := func(c *Cache, k, kind string) (csvLayout, bool) {
		var l csvLayout
		ok := Options{Cache: c, Key: k}.load(kind, &l)
		return l, ok
	}
	c2, _ := NewCache(dir)
	if l, ok := load(c2, key(1, "/b"), "k"); !ok || len(l.Starts) != 2 || l.Starts[1] != 2 {
		t.Fatalf("reloaded /b: %v %v", l, ok)
	}
	if l, ok := load(c2, key(2, "/a"), "k"); !ok || l.Starts[0] != 7 {
		t.Fatalf("reloaded other identity: %v %v", l, ok)
	}
	if _, ok := load(c2, key(1, "/a"), "other-kind"); ok {
		t.Fatal("another kind hit")
	}
	if _, ok := load(c2, key(3, "/a"), "k"); ok {
		t.Fatal("another identity hit")
	}

	// A torn last record costs that record only; the log is cut back and
	// appended to again.
	l1 := c2.log(key(1, "")).path
	st, _ := os.Stat(l1)
	if err := os.Truncate(l1, st.Size()-3); err != nil {
		t.Fatal(err)
	}
	c3, _ := NewCache(dir)
	if _, ok := load(c3, key(1, "/c"), "k"); ok {
		t.Fatal("torn record read")
	}
	if _, ok := load(c3, key(1, "/b"), "k"); !ok {
		t.Fatal("record before the torn one lost")
	}
	if err := (Options{Cache: c3, Key: key(1, "/c")}).store("k", csvLayout{Starts: []int64{9}}); err != nil {
		t.Fatal(err)
	}
	c4, _ := NewCache(dir)
	if l, ok := load(c4, key(1, "/c"), "k"); !ok || l.Starts[0] != 9 {
		t.Fatalf("entry appended after repair: %v %v", l, ok)
	}

	// A flipped byte fails the checksum: that record and all after it are
	// misses, never wrong values.
	b, _ := os.ReadFile(l1)
	b[12] ^= 0xff
	os.WriteFile(l1, b, 0o644)
	c5, _ := NewCache(dir)
	for _, obj := range []string{"/a", "/b", "/c"} {
		if l, ok := load(c5, key(1, obj), "k"); ok && l.Starts[len(l.Starts)-1] != map[string]int64{"/a": 2, "/b": 2, "/c": 9}[obj] {
			t.Fatalf("%s: wrong value %v from a damaged log", obj, l)
		}
	}
}

// TestFileIDKey checks that a key spells the file's identity as %q %d %d
// %d, a NUL and the object, whatever the path holds.
func TestFileIDKey(t *testing.T) {
	for _, id := range []FileID{
		{Path: "/f.h5", Size: 1, ModTime: 2, Inode: 3},
		{Path: "/a \"b\"\n\x00é.h5", Size: -1, ModTime: -1 << 62, Inode: 1<<64 - 1},
		{},
	} {
		want := fmt.Sprintf("%q %d %d %d\x00%s", id.Path, id.Size, id.ModTime, id.Inode, "/t/x")
		if got := id.Key("/t/x"); got != want {
			t.Errorf("%+v: Key = %q, want %q", id, got, want)
		}
	}
}
