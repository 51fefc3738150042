package table

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
)

// noBarrier is a transaction whose Barrier does nothing: an Append that
// forgot its barrier before NROWS.
type noBarrier struct{ *h5core.Tx }

func (noBarrier) Barrier() error { return nil }

// replayMutation records one mutation of the table of src (write.h5 or
// write_fixed.h5) on a copy and
// checks every crash state with libhdf5 (h5py): after recovery it sees
// exactly the old or the new file; before recovery it opens the file and
// sees the old or the new NROWS, and whenever NROWS is new, every column
// and search index is the new one.
func replayMutation(t *testing.T, src string, rec *crashtest.Recorder, f func(tb *Table, tx Tx) error) (int, error) {
	t.Helper()
	mutation := func(rw *h5core.RW) error { mutate(t, rw, f); return nil }
	return crashtest.CheckNROWSCommit(t, copyFile(t, src), "/t", rec, mutation, func(before, newD crashtest.FileDigest) error {
		if !reflect.DeepEqual(before.Datasets, newD.Datasets) {
			return fmt.Errorf("before recovery NROWS is new but a column or index is not")
		}
		return nil
	})
}

// TestCrashReplay replays an append (into the last chunk and new ones,
// growing every index; and one deleting the indexes that cannot grow), a
// truncation and an update of cells in every
// column at every prefix of their writes and fsyncs, with the disk
// reordering the writes between two fsyncs too. An update keeps
// NROWS: only the journal makes it atomic, which the check after
// recovery (the old or the new file, nothing between) holds it to.
func TestCrashReplay(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		f         func(tb *Table, tx Tx) error
	}{
		{"append", "write.h5", func(tb *Table, tx Tx) error { return tb.Append(tx, writeRows(t, tb, 40, 20)) }},
		{"truncate", "write.h5", func(tb *Table, tx Tx) error { return tb.Truncate(tx, 17) }},
		{"update", "write.h5", func(tb *Table, tx Tx) error { return tb.Update(tx, updateCells(t, tb, 500)) }},
		{"append dropping indexes", "write_fixed.h5", func(tb *Table, tx Tx) error { return tb.Append(tx, writeRows(t, tb, 40, 20)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := replayMutation(t, "testdata/"+tc.src, &crashtest.Recorder{}, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}

// TestCrashReplayCatchesMissingBarrier: an append without its barrier
// before NROWS must fail the replay.
func TestCrashReplayCatchesMissingBarrier(t *testing.T) {
	_, err := replayMutation(t, "testdata/write.h5", &crashtest.Recorder{}, func(tb *Table, tx Tx) error {
		return tb.Append(noBarrier{tx.(*h5core.Tx)}, writeRows(t, tb, 40, 20))
	})
	if err == nil {
		t.Fatal("an append without a barrier before NROWS passed the crash replay")
	}
	t.Logf("caught: %v", err)
}

// TestCrashReplayUpdateTornBeforeRecovery documents the gap ordering
// cannot close: an update rewrites cells of several chunks and datasets
// in place and keeps NROWS, so it has no single pointer to flip last,
// and a crash before its commit can show libhdf5, before recovery, some
// cells new and others old. The journal closes it: every such state
// recovers to exactly the old or the new file (TestCrashReplay checks
// that). The test fails when no torn state is left, so that the
// documentation follows.
func TestCrashReplayUpdateTornBeforeRecovery(t *testing.T) {
	p := copyFile(t, "testdata/write.h5")
	snap, err := crashtest.Take(p, h5core.JournalPath(p))
	if err != nil {
		t.Fatal(err)
	}
	old, err := crashtest.Digest(p)
	if err != nil {
		t.Fatal(err)
	}
	rec := &crashtest.Recorder{}
	rw, err := h5core.OpenRWWith(p, h5core.RWOptions{FS: rec})
	if err != nil {
		t.Fatal(err)
	}
	mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Update(tx, updateCells(t, tb, 500)) })
	rw.Close()
	cur, err := crashtest.Digest(p)
	if err != nil {
		t.Fatal(err)
	}
	oldD, newD := old[p], cur[p]
	ops := rec.Ops()
	crashes, err := crashtest.Replay(snap, ops, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var torn []string
	err = crashtest.Check(crashes, ops, p, func(c crashtest.Crash, before, _ crashtest.FileDigest) error {
		if before.Error != "" {
			return fmt.Errorf("before recovery libhdf5 fails: %s", before.Error)
		}
		if !reflect.DeepEqual(before.Datasets, oldD.Datasets) && !reflect.DeepEqual(before.Datasets, newD.Datasets) {
			torn = append(torn, c.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(torn) == 0 {
		t.Fatal("no crash state shows a torn update before recovery: ordering closed the gap, update this test and the closing note")
	}
	t.Logf("%d of %d crash states show libhdf5 a torn update before recovery (first: %s); recovery restores the old file", len(torn), len(crashes), torn[0])
}
