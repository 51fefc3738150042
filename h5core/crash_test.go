package h5core_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
)

// appendTx is the transaction the crash tests replay: rows appended to
// two datasets, a barrier, then NROWS as the commit point.
func appendTx(rw *h5core.RW) error {
	tx, err := rw.Begin()
	if err != nil {
		return err
	}
	for _, c := range []struct {
		path string
		n, k int
	}{{"/t/a", 10, 5}, {"/t/many", 1000, 60}} {
		if err := tx.SetExtent(c.path, []uint64{uint64(c.n + c.k)}); err != nil {
			return err
		}
		vals := make([]float64, c.k)
		for i := range vals {
			vals[i] = float64(1000 + i)
		}
		if err := tx.WriteAt(c.path, le(8, false, vals...), int64(c.n*8)); err != nil {
			return err
		}
	}
	if err := tx.Barrier(); err != nil {
		return err
	}
	if err := tx.SetAttribute("/t", "NROWS", le(8, false, 15)); err != nil {
		return err
	}
	return tx.Commit()
}

// replayAppend records appendTx on a copy of the fixture and checks
// every crash state: after recovery libhdf5 sees exactly the old or the
// new file; before recovery it opens the file and sees the old or the
// new NROWS, with the new data whenever NROWS is new.
func replayAppend(t *testing.T, fixture string, rec *crashtest.Recorder) (int, error) {
	return crashtest.CheckNROWSCommit(t, copyFixture(t, fixture), "/t", rec, appendTx, func(before, newD crashtest.FileDigest) error {
		for _, p := range []string{"/t/a", "/t/many"} {
			if !reflect.DeepEqual(before.Datasets[p], newD.Datasets[p]) {
				return fmt.Errorf("before recovery NROWS is new but %s is not", p)
			}
		}
		return nil
	})
}

// TestCrashReplayAppend replays appendTx, with the disk reordering the
// writes between two fsyncs too.
func TestCrashReplayAppend(t *testing.T) {
	for _, fixture := range []string{"earliest", "latest", "earliest_ub", "latest_ub"} {
		t.Run(fixture, func(t *testing.T) {
			n, err := replayAppend(t, fixture, &crashtest.Recorder{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}

// updateTx is an update and a truncation as HEP001 makes them: elements
// rewritten inside the extent (in place in /t/a; /t/b is gzip-filtered,
// so its chunk moves to the end of file and its index entry changes), a
// barrier, then NROWS lowered as the commit point.
func updateTx(rw *h5core.RW) error {
	tx, err := rw.Begin()
	if err != nil {
		return err
	}
	if err := tx.WriteAt("/t/a", le(8, false, -1, -2), 2*8); err != nil {
		return err
	}
	if err := tx.WriteAt("/t/b", le(8, true, 0.5), 5*8); err != nil {
		return err
	}
	if err := tx.Barrier(); err != nil {
		return err
	}
	if err := tx.SetAttribute("/t", "NROWS", le(8, false, 8)); err != nil {
		return err
	}
	return tx.Commit()
}

// TestCrashReplayUpdate replays updateTx on every fixture, user-block
// ones too: after recovery libhdf5 sees the old or the new file; before
// it, the old or the new NROWS, and the new values whenever NROWS is new.
func TestCrashReplayUpdate(t *testing.T) {
	for _, fixture := range []string{"earliest", "latest", "earliest_ub", "latest_ub"} {
		t.Run(fixture, func(t *testing.T) {
			n, err := crashtest.CheckNROWSCommit(t, copyFixture(t, fixture), "/t", &crashtest.Recorder{}, updateTx, func(before, newD crashtest.FileDigest) error {
				for _, p := range []string{"/t/a", "/t/b"} {
					if !reflect.DeepEqual(before.Datasets[p], newD.Datasets[p]) {
						return fmt.Errorf("before recovery NROWS is new but %s is not", p)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}

// TestCrashReplayCatchesMissingSync drops the journal's fsyncs from the
// record (as if the code forgot them): the harness must find a crash
// state that loses the journal and leaves a torn file.
func TestCrashReplayCatchesMissingSync(t *testing.T) {
	rec := &crashtest.Recorder{DropSync: func(name string) bool { return strings.HasSuffix(name, "-journal") }}
	_, err := replayAppend(t, "earliest", rec)
	if err == nil {
		t.Fatal("a transaction whose journal is never fsynced passed the crash replay")
	}
	t.Logf("caught: %v", err)
}

// TestCrashReplayCatchesReorder drops the data file's fsync between the
// overwrites before the barrier and NROWS from the record, the writes
// still made in order: only the crash states where the disk kept a later
// write and lost an earlier one (NROWS without the new extent) show the
// bug, and the harness must find one.
func TestCrashReplayCatchesReorder(t *testing.T) {
	var syncs atomic.Int32 // the journal's sync and the file's may run at once
	count := &crashtest.Recorder{DropSync: func(name string) bool {
		if strings.HasSuffix(name, ".h5") {
			syncs.Add(1)
		}
		return false
	}}
	if _, err := replayAppend(t, "earliest", count); err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	rec := &crashtest.Recorder{DropSync: func(name string) bool {
		return strings.HasSuffix(name, ".h5") && n.Add(1) == syncs.Load()-1 // the one before NROWS's
	}}
	_, err := replayAppend(t, "earliest", rec)
	if err == nil {
		t.Fatal("a commit without the fsync before NROWS passed the crash replay")
	}
	if !strings.Contains(err.Error(), "alone lost") {
		t.Errorf("caught, but not by a reordered state: %v", err)
	}
	t.Logf("caught: %v", err)
}

// TestCrashReplayDeleteIndex replays what dropping a search index does:
// a link deleted (symbol table, dense group) and a reference list
// attribute shrunk, then NROWS. Every crash state recovers to the old or
// the new file, and libhdf5 opens every state before recovery.
func TestCrashReplayDeleteIndex(t *testing.T) {
	for _, fixture := range []string{"earliest", "latest"} {
		t.Run(fixture, func(t *testing.T) {
			n, err := crashtest.CheckTx(t, copyFixture(t, fixture), &crashtest.Recorder{}, func(rw *h5core.RW) error {
				tx, err := rw.Begin()
				if err != nil {
					return err
				}
				for _, step := range []func() error{
					func() error { return tx.DeleteLink("/links", "x1") },
					func() error { return tx.DeleteLink("/dense_links", "d03") },
					func() error { return tx.SetAttributeShape("/t", "list", []uint64{2}, le(8, false, 4, 3)) },
					tx.Barrier,
					func() error { return tx.SetAttribute("/t", "NROWS", le(8, false, 4)) },
				} {
					if err := step(); err != nil {
						return err
					}
				}
				return tx.Commit()
			}, func(_, _, _ crashtest.FileDigest) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}
