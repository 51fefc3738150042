package h5core_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
)

// denseAttrEdit is one attribute rewrite of replayDenseAttrs: /g of
// testdata/dense/small.h5 keeps its attributes in dense storage, attr0000
// (an int32) as a managed object of the fractal heap, mid (1100 int32,
// 4400 bytes, over the heap's managed-object limit) as a huge object.
type denseAttrEdit struct {
	name string
	vals []int32
}

var denseAttrEdits = []denseAttrEdit{
	{"mid", func() []int32 {
		v := make([]int32, 1100)
		for i := range v {
			v[i] = int32(-7 * i)
		}
		return v
	}()},
	{"attr0000", []int32{4242}},
}

func int32LE(vals []int32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	return b
}

// replayDenseAttrs records rewriting both attributes of denseAttrEdits in
// one transaction on a copy of small.h5, checks that libhdf5 sees the
// new values, replays every crash state and returns their number and the
// first that breaks the promise: after recovery libhdf5 sees exactly the
// old or the new file; before recovery it opens the file and sees each
// attribute whole, old or new (each rewrite is one write of whole
// blocks or of the whole object).
func replayDenseAttrs(t *testing.T, rec *crashtest.Recorder) (int, error) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "dense", "small.h5"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "small.h5")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	n, cerr := crashtest.CheckTx(t, p, rec, func(rw *h5core.RW) error {
		tx, err := rw.Begin()
		if err != nil {
			return err
		}
		for _, e := range denseAttrEdits {
			if err := tx.SetAttribute("/g", e.name, int32LE(e.vals)); err != nil {
				return err
			}
		}
		return tx.Commit()
	}, func(before, oldD, newD crashtest.FileDigest) error {
		for _, e := range denseAttrEdits {
			v := before.Attrs["/g"][e.name]
			if !reflect.DeepEqual(v, oldD.Attrs["/g"][e.name]) && !reflect.DeepEqual(v, newD.Attrs["/g"][e.name]) {
				return fmt.Errorf("before recovery /g %s is neither old nor new: %.80v", e.name, v)
			}
		}
		return nil
	})
	cur, err := crashtest.Digest(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range denseAttrEdits {
		got, want := fmt.Sprint(cur[p].Attrs["/g"][e.name]), fmt.Sprint(e.vals)
		if len(e.vals) == 1 {
			want = fmt.Sprint(e.vals[0])
		}
		if got != want {
			t.Fatalf("libhdf5 after the commit: /g %s is %.60s…, want %.60s…", e.name, got, want)
		}
	}
	return n, cerr
}

// TestCrashReplayDenseAttribute replays rewriting attributes kept in a
// group's dense storage, a huge fractal heap object among them, with the
// disk reordering the writes between two fsyncs too.
func TestCrashReplayDenseAttribute(t *testing.T) {
	n, err := replayDenseAttrs(t, &crashtest.Recorder{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d crash states checked", n)
}

// TestCrashReplayDenseAttributeCatchesMissingSync drops the journal's
// fsyncs from the record: some crash state then keeps one attribute's
// overwrite without the journal that undoes it, and recovery leaves a
// file that is neither old nor new, which the harness must find.
func TestCrashReplayDenseAttributeCatchesMissingSync(t *testing.T) {
	rec := &crashtest.Recorder{DropSync: func(name string) bool { return strings.HasSuffix(name, "-journal") }}
	if _, err := replayDenseAttrs(t, rec); err == nil {
		t.Fatal("dense attribute rewrites whose journal is never fsynced passed the crash replay")
	} else {
		t.Logf("caught: %v", err)
	}
}
