package fsnode

import (
	"testing"
	"time"
)

// TestReadAhead lists the sample's run1 (a group of a dataset, a table
// and a group) and checks that the read-ahead lists its subdirectories
// and finds what stat shows of their files (the cheap ones exact) before
// anyone asks.
func TestReadAhead(t *testing.T) {
	tree := openTree(t, "../cmd/h5fs/sample/sample.h5")
	run1, err := tree.lookup(tree.root, "run1")
	if err != nil || run1.dir == nil {
		t.Fatalf("run1: %+v, %v", run1, err)
	}
	es, err := tree.children(run1.dir)
	if err != nil {
		t.Fatal(err)
	}
	tree.readAhead(run1.dir, es)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		tree.ahead.mu.Lock()
		running := tree.ahead.running
		tree.ahead.mu.Unlock()
		if !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("read-ahead still running after a minute")
		}
	}
	dirs := 0
	for _, e := range es {
		if e.dir == nil {
			continue
		}
		dirs++
		if e.dir.entries == nil {
			t.Errorf("run1/%s: not listed", e.name)
		}
		for _, c := range e.dir.entries {
			f := tree.fileOf(c)
			if f == nil || hidden(c.name) {
				continue
			}
			f.mu.Lock()
			st := f.stat
			f.mu.Unlock()
			if !st.known || !st.exact {
				t.Errorf("run1/%s/%s: stat %+v, want a known exact size", e.name, c.name, st)
			}
		}
	}
	if dirs < 2 {
		t.Errorf("run1 has %d subdirectories, want at least 2", dirs)
	}
}
