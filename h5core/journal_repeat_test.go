package h5core

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestJournalRepeats: a range whose old bytes repeat a unit of up to
// maxJournalPeriod bytes (a fill value) is journaled as the unit and its
// length, any other range whole, and rolling back restores every range
// byte for byte, whatever its length and the unit's phase at its end.
func TestJournalRepeats(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 6))
	unit := func(n int) []byte {
		u := make([]byte, n)
		for i := range u {
			u[i] = byte(rng.Uint32())
		}
		return u
	}
	repeat := func(u []byte, n int) []byte {
		b := make([]byte, n)
		fillRepeat(b, u, 0)
		return b
	}
	nan := []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}
	for _, tc := range []struct {
		name   string
		old    []byte
		period int // what the record keeps of a repeating range; 0: all of it
	}{
		{"float64 NaN fill", repeat(nan, 80000), 8},
		{"uint8 fill", repeat([]byte{0xff}, 10000), 1},
		{"int32 fill, length not a multiple", repeat([]byte{0xff, 0xff, 0xff, 0x7f}, 4001), 4},
		{"12-byte compound fill", repeat(unit(12), 12*500+5), 12},
		{"64-byte unit", repeat(unit(64), 64*40), 64},
		{"12-byte unit over two restore pieces", repeat(unit(12), maxRestorePiece+100), 12},
		{"65-byte unit: kept whole", repeat(unit(65), 65*40), 0},
		{"zeros", make([]byte, 4096), 1},
		{"fill then a value", append(repeat(nan, 8000), 1), 0},
		{"random", unit(5000), 0},
		{"short fill: kept whole", repeat(nan, 200), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := repeatPeriod(tc.old); got != tc.period {
				t.Fatalf("repeatPeriod = %d, want %d", got, tc.period)
			}
			dir := t.TempDir()
			p := filepath.Join(dir, "f")
			const at = 100
			file := append(append(unit(at), tc.old...), unit(50)...)
			if err := os.WriteFile(p, file, 0o644); err != nil {
				t.Fatal(err)
			}
			df, err := OSFS.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer df.Close()
			var buf []byte
			j := &journal{fsys: OSFS, path: JournalPath(p), oldSize: int64(len(file)), salt: 7, buf: &buf}
			if err := j.save(df, []byteRange{{at, at + int64(len(tc.old))}}, false); err != nil {
				t.Fatal(err)
			}
			kept := len(tc.old)
			if tc.period > 0 {
				kept = tc.period
			}
			if want := int64(journalHeaderSize + journalRecordHead + kept + 4); j.end != want {
				t.Errorf("journal of %d bytes, want %d", j.end, want)
			}
			if _, err := df.WriteAt(unit(len(tc.old)), at); err != nil { // the overwrite
				t.Fatal(err)
			}
			j.close(false)
			if hot, err := RecoverFS(OSFS, p, nil); err != nil || !hot {
				t.Fatalf("RecoverFS = %v, %v", hot, err)
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, file) {
				t.Fatal("rolled back file differs from the old one")
			}
		})
	}
}

// FuzzReadJournal: any journal file reads back as intact records (or an
// error), without a panic, each record's bytes no more than its range's
// and bounded by the file, and restoring one writes its whole range.
func FuzzReadJournal(f *testing.F) {
	dir := f.TempDir()
	p := filepath.Join(dir, "f")
	file := make([]byte, 3000)
	fillRepeat(file[1000:2000], []byte{1, 2, 3}, 0)
	if err := os.WriteFile(p, file, 0o644); err != nil {
		f.Fatal(err)
	}
	df, err := OSFS.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		f.Fatal(err)
	}
	j := &journal{fsys: OSFS, path: JournalPath(p), oldSize: 3000, salt: 3}
	if err := j.save(df, []byteRange{{10, 20}, {1000, 2000}}, false); err != nil {
		f.Fatal(err)
	}
	j.close(false)
	df.Close()
	seed, err := os.ReadFile(JournalPath(p))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		jp := filepath.Join(t.TempDir(), "j")
		if err := os.WriteFile(jp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		jf, err := OSFS.OpenFile(jp, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer jf.Close()
		recs, _, _, err := readJournal(jf)
		if err != nil {
			return
		}
		for _, r := range recs {
			if int64(len(r.data)) > r.n || r.n > maxJournalRecord || len(r.data) > len(b) || r.n > 0 && len(r.data) == 0 {
				t.Fatalf("record of %d bytes keeps %d", r.n, len(r.data))
			}
			if r.n > 1<<16 || r.off < 0 || r.off > 1<<20 {
				continue
			}
			op := filepath.Join(t.TempDir(), "out")
			out, err := OSFS.OpenFile(op, os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			err = r.restore(out)
			out.Close()
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(op)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(got)) != r.off+r.n || !bytes.Equal(got[r.off:r.off+int64(len(r.data))], r.data) {
				t.Fatalf("restoring %d bytes at %d wrote %d", r.n, r.off, len(got))
			}
		}
	})
}
