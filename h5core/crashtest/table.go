package crashtest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// CheckTx records mutate, a transaction on the HDF5 file at path, and
// checks every crash state with libhdf5: after recovery it sees exactly
// the old or the new file; before recovery it opens the file and
// before(state, old, new) holds. A failure before the replay (the
// mutation itself, libhdf5 failing on the old or new file or seeing no
// change) fails tb; it returns the number of crash states and the first
// crash state that failed the checks.
func CheckTx(tb testing.TB, path string, rec *Recorder, mutate func(*h5core.RW) error, before func(state, old, new FileDigest) error) (int, error) {
	tb.Helper()
	snap, err := Take(path, h5core.JournalPath(path))
	if err != nil {
		tb.Fatal(err)
	}
	old, err := Digest(path)
	if err != nil {
		tb.Fatal(err)
	}
	rw, err := h5core.OpenRWWith(path, h5core.RWOptions{FS: rec})
	if err != nil {
		tb.Fatal(err)
	}
	if err := mutate(rw); err != nil {
		rw.Close()
		tb.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		tb.Fatal(err)
	}
	cur, err := Digest(path)
	if err != nil {
		tb.Fatal(err)
	}
	oldD, newD := old[path], cur[path]
	if oldD.Error != "" || newD.Error != "" || reflect.DeepEqual(oldD, newD) {
		tb.Fatalf("libhdf5 before and after: %q / %q (or no change)", oldD.Error, newD.Error)
	}
	ops := rec.Ops()
	crashes, err := Replay(snap, ops, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return len(crashes), Check(crashes, ops, path, func(c Crash, state, after FileDigest) error {
		if !reflect.DeepEqual(after, oldD) && !reflect.DeepEqual(after, newD) {
			return fmt.Errorf("after recovery libhdf5 sees neither the old nor the new file (error %q)", after.Error)
		}
		if state.Error != "" {
			return fmt.Errorf("before recovery libhdf5 fails: %s", state.Error)
		}
		return before(state, oldD, newD)
	})
}

// CheckNROWSCommit is CheckTx for a transaction that commits with the
// table's NROWS attribute last: before recovery libhdf5 sees the old or
// the new NROWS, and whenever NROWS is new, newData(before, new) holds
// (the rows it counts are there).
func CheckNROWSCommit(tb testing.TB, path, table string, rec *Recorder, mutate func(*h5core.RW) error, newData func(before, new FileDigest) error) (int, error) {
	tb.Helper()
	return CheckTx(tb, path, rec, mutate, func(before, oldD, newD FileDigest) error {
		switch before.Attrs[table]["NROWS"] {
		case oldD.Attrs[table]["NROWS"]:
		case newD.Attrs[table]["NROWS"]:
			return newData(before, newD)
		default:
			return fmt.Errorf("before recovery NROWS is %v", before.Attrs[table]["NROWS"])
		}
		return nil
	})
}
