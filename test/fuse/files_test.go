package fuse_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// allFiles returns the HDF5 files the kernel tests mount: the repo's
// sample and test data, and the shared fixtures.
func allFiles(t *testing.T) []string {
	all := []string{"../../cmd/h5fs/sample/sample.h5"}
	for _, pat := range []string{"../../*/testdata/*.h5", "../../*/testdata/*/*.h5"} {
		m, _ := filepath.Glob(pat)
		all = append(all, m...)
	}
	all = append(all, fusetest.FixtureFiles(t)...)
	seen := map[string]bool{}
	return slices.DeleteFunc(all, func(n string) bool {
		abs, _ := filepath.Abs(n)
		dup := seen[abs]
		seen[abs] = true
		return dup
	})
}

// mayFail reports a file some of whose objects may fail to read: the
// deliberately broken fixtures, and the repo's unit-test data (which
// holds unsupported filters and tampered tables on purpose).
func mayFail(name string) bool {
	return strings.HasPrefix(filepath.Base(name), "broken_") || strings.Contains(name, "/testdata/")
}

// broken reports a fixture whose defects are deliberate.
func broken(name string) bool { return strings.HasPrefix(filepath.Base(name), "broken_") }

// TestEveryFile reads every file of every mount: the size stat reports
// before open is exact or an upper bound (never 0 for content), after open
// it equals the bytes read, random reads return the same bytes,
// .meta.json is JSON, and only deliberately broken objects fail (EIO).
func TestEveryFile(t *testing.T) {
	for _, name := range allFiles(t) {
		t.Run(strings.TrimPrefix(name, "../../"), func(t *testing.T) {
			mp := fusetest.Mount(t, name, nil)
			n := 0
			err := filepath.WalkDir(mp, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					t.Errorf("walk %s: %v", p, err)
					return nil
				}
				if !d.Type().IsRegular() {
					return nil
				}
				n++
				before, err := os.Stat(p) // before any open: exact, or an upper-bound estimate
				if err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(p)
				if err != nil {
					if !mayFail(name) {
						t.Errorf("%s: %v", p, err)
					}
					return nil
				}
				st, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if st.Size() != int64(len(data)) {
					t.Errorf("%s: stat size %d, read %d bytes", p, st.Size(), len(data))
				}
				if before.Size() < int64(len(data)) || (before.Size() == 0) != (len(data) == 0) {
					t.Errorf("%s: stat size before open %d, content %d bytes", p, before.Size(), len(data))
				}
				checkRandomReads(t, p, data)
				if filepath.Base(p) == ".meta.json" && !json.Valid(data) {
					t.Errorf("%s is not JSON: %.200s", p, data)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Errorf("no files on the mount of %s", name)
			}
		})
	}
}

// checkRandomReads reads pieces of p at random offsets and compares them
// with the whole.
func checkRandomReads(t *testing.T, p string, whole []byte) {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := rand.New(rand.NewSource(int64(len(whole))))
	for i := 0; i < 8 && len(whole) > 0; i++ {
		off := r.Int63n(int64(len(whole)))
		buf := make([]byte, 1+r.Intn(300000))
		k, err := f.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			t.Errorf("%s: pread at %d: %v", p, off, err)
			return
		}
		if !bytes.Equal(buf[:k], whole[off:off+int64(k)]) {
			t.Errorf("%s: pread of %d at %d differs from a full read", p, len(buf), off)
			return
		}
	}
}

// Files of the broken fixtures that must fail with EIO, and that must read.
var (
	failing = map[string][]string{
		"broken_missing_nrows.h5":   {"t.csv", "t.parquet", "t/a.csv", "t/b.raw"},
		"broken_extent_mismatch.h5": {"t.csv", "t.arrow", "t/a.csv"},
		"broken_checksum.h5":        {"t"},
		"broken_tables.h5":          {"t.csv", "t.parquet", "t/a.csv", "t/a.raw", "u.arrow", "u/b.csv", "v.csv", "v/a.raw"},
		"broken_root_table.h5":      {"a.csv", "a.arrow", "a.raw"},
	}
	reading = map[string][]string{
		"broken_wrong_class.h5": {"t/a.raw", "t/b.npy", "t/.meta.json"},
		"broken_tables.h5":      {"plain.npy", "w/a.raw", "t/.meta.json", "u/.meta.json"},
		"broken_root_table.h5":  {"g/x.raw", "g/x.npy", ".meta.json"},
	}
)

// TestBrokenFixtures: a bad table does not break the mount; the rest
// lists, and the bad object's files fail with EIO.
func TestBrokenFixtures(t *testing.T) {
	for _, name := range fusetest.FixtureFiles(t) {
		if !broken(name) {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			mp := fusetest.Mount(t, name, io.Discard)
			if _, err := os.ReadDir(mp); err != nil {
				t.Fatalf("root of %s does not list: %v", name, err)
			}
			if _, err := os.ReadFile(filepath.Join(mp, ".meta.json")); err != nil {
				t.Errorf("root .meta.json: %v", err)
			}
			// a bad table /t shows its files, failing with EIO; a CLASS
			// that is not COLUMN_TABLE is no table, so plain files that read
			for _, p := range failing[filepath.Base(name)] {
				if _, err := os.ReadFile(filepath.Join(mp, p)); !errors.Is(err, syscall.EIO) {
					t.Errorf("%s: %v, want EIO", p, err)
				}
			}
			for _, p := range reading[filepath.Base(name)] {
				if _, err := os.ReadFile(filepath.Join(mp, p)); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
		})
	}
}
