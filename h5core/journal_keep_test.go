package h5core_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// TestKeptJournal: a commit wipes the rollback journal and keeps the
// file for the next transaction. A crash in a later transaction whose
// journal is shorter than an earlier one's rolls back that transaction
// only: the earlier records left past its own end (checksummed with
// another salt) are not applied. A committed transaction's kept journal
// is not hot (nor says JournalHot), and a rollback or Close removes it.
func TestKeptJournal(t *testing.T) {
	p := copyFixture(t, "earliest")
	rw, err := h5core.OpenRW(p)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	set := func(tx *h5core.Tx, attrs map[[2]string]float64) {
		for k, v := range attrs {
			if err := tx.SetAttribute(k[0], k[1], le(8, false, v)); err != nil {
				t.Fatal(err)
			}
		}
	}
	tx, _ := rw.Begin()
	set(tx, map[[2]string]float64{{"/t", "NROWS"}: 3, {"/attrs", "a05"}: -5})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	committed, _ := os.ReadFile(p)
	jp := h5core.JournalPath(p)
	for _, tc := range []struct {
		name string
		tx   func() *h5core.Tx // nil: no transaction open
		want []byte
	}{
		{"after a commit", nil, committed},
		{"crash in the next transaction", func() *h5core.Tx {
			tx, _ := rw.Begin()
			set(tx, map[[2]string]float64{{"/t", "NROWS"}: 4})
			if err := h5core.ApplyUncommitted(tx); err != nil {
				t.Fatal(err)
			}
			return tx
		}, committed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tx *h5core.Tx
			if tc.tx != nil {
				tx = tc.tx()
				defer tx.Rollback()
			}
			// the crash: the file and its journal as they are now
			dir := t.TempDir()
			cp := filepath.Join(dir, "f.h5")
			for src, dst := range map[string]string{p: cp, jp: h5core.JournalPath(cp)} {
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dst, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			hot, err := h5core.RecoverFS(h5core.OSFS, cp, nil)
			if err != nil {
				t.Fatal(err)
			}
			if hot != (tx != nil) {
				t.Errorf("journal hot: %v, want %v", hot, tx != nil)
			}
			if got := h5core.JournalHot(p); got != (tx != nil) {
				t.Errorf("JournalHot: %v, want %v", got, tx != nil)
			}
			if got, _ := os.ReadFile(cp); !bytes.Equal(got, tc.want) {
				t.Error("recovered file is not the committed one")
			}
		})
	}
	tx, _ = rw.Begin()
	set(tx, map[[2]string]float64{{"/t", "NROWS"}: 5})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(jp); err != nil {
		t.Errorf("no journal kept after a commit: %v", err)
	}
	tx, _ = rw.Begin()
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(jp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("journal left after a rollback: %v", err)
	}
	tx, _ = rw.Begin()
	set(tx, map[[2]string]float64{{"/t", "NROWS"}: 6})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(jp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("journal left after Close: %v", err)
	}
}
