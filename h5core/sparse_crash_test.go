package h5core_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
	"github.com/h5fs/h5fs/internal/sparsetest"
)

// replaySparseTx records mutate, one transaction on the file at p,
// through rec, and replays every crash state, with the disk reordering
// writes between two fsyncs too: after recovery the file must be byte
// for byte the old one (perhaps followed by bytes written past its end)
// or the new one, and before recovery libhdf5 must list it as it lists
// the old or the new file (every link, each object opening as before;
// sparse datasets fail in libhdf5 1.10 as they did). It returns the
// number of states and the first that breaks this.
func replaySparseTx(t *testing.T, p string, rec *crashtest.Recorder, mutate func(tx *h5core.Tx) error) (int, error) {
	t.Helper()
	old, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := crashtest.Take(p, h5core.JournalPath(p))
	if err != nil {
		t.Fatal(err)
	}
	rw, err := h5core.OpenRWWith(p, h5core.RWOptions{FS: rec})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := rw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := mutate(tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	cur, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(old, cur) {
		t.Fatal("the transaction changed nothing")
	}
	dir := t.TempDir()
	oldPath, newPath := dir+"/old.h5", dir+"/new.h5"
	if os.WriteFile(oldPath, old, 0o644) != nil || os.WriteFile(newPath, cur, 0o644) != nil {
		t.Fatal("cannot keep the old and new files")
	}
	listings, err := sparsetest.Libhdf5Listing(oldPath, newPath)
	if err != nil {
		t.Fatal(err)
	}
	ops := rec.Ops()
	crashes, err := crashtest.Replay(snap, ops, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var before []string
	for _, c := range crashes {
		cp := c.Path(p)
		b, err := os.ReadFile(cp)
		if err != nil {
			t.Fatal(err)
		}
		pre := cp + ".before.h5"
		if err := os.WriteFile(pre, b, 0o644); err != nil {
			t.Fatal(err)
		}
		before = append(before, pre)
		if _, err := h5core.RecoverFS(h5core.OSFS, cp, nil); err != nil {
			return len(crashes), fmt.Errorf("%s: recover: %v", c, err)
		}
		got, err := os.ReadFile(cp)
		if err != nil {
			t.Fatal(err)
		}
		// the old file may be followed by bytes written past its end
		// before the journal existed: no address reaches them
		if !bytes.HasPrefix(got, old) && !bytes.Equal(got, cur) {
			return len(crashes), fmt.Errorf("%s: after recovery the file is neither the old nor the new one", c)
		}
	}
	pre, err := sparsetest.Libhdf5Listing(before...)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range before {
		if sparsetest.SameListing(listings[oldPath], pre[b]) != nil && sparsetest.SameListing(listings[newPath], pre[b]) != nil {
			return len(crashes), fmt.Errorf("%s: before recovery libhdf5 lists neither the old nor the new file: %v", crashes[i], pre[b])
		}
	}
	return len(crashes), nil
}

// TestSparseCommitCrash replays commits to existing sparse datasets of
// the index kinds the sparsecoo Writer's replay leaves out: a v2 B-tree
// and single chunks. Every stored chunk is rewritten (its first element
// kept, with a new value) except the first of several, which is erased
// (it leaves the index), and a single chunk is erased in one case; the
// new file is read back by h5core and by the independent decoder.
func TestSparseCommitCrash(t *testing.T) {
	for _, c := range []struct {
		file, name, dtype string
		eraseOnly         bool // erase the only chunk
	}{
		{"sparse_2d_int32_bt2.h5", "/int32_bt2", "<i4", false},
		{"sparse_2d_int32_bt2.h5", "/int32_bt2_filtered", "<i4", false},
		{"sparse_2d_uint8_single.h5", "/uint8_single_points", "u1", false},
		{"sparse_2d_uint8_single.h5", "/uint8_single_filtered", "u1", false},
		{"sparse_2d_uint8_single.h5", "/uint8_single_dense", "u1", true},
	} {
		t.Run(c.name[1:], func(t *testing.T) {
			p := copySparseFixture(t, c.file)
			oldC, err := readSparseChunks(p, c.name)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]sparseChunk{}
			keys := sortedKeys(oldC)
			for i, k := range keys {
				if i == 0 && (len(keys) > 1 || c.eraseOnly) {
					continue // erased
				}
				ch := oldC[k]
				size := len(ch.vals) / len(ch.idx)
				v := bytes.Clone(ch.vals[:size])
				v[0] ^= 0x5a
				want[k] = sparseChunk{ch.scaled, ch.idx[:1], v}
			}
			n, err := replaySparseTx(t, p, &crashtest.Recorder{}, func(tx *h5core.Tx) error {
				for _, k := range keys {
					w, ok := want[k]
					if !ok {
						if err := tx.WriteSparseChunk(c.name, oldC[k].scaled, nil, nil); err != nil {
							return err
						}
						continue
					}
					if err := tx.WriteSparseChunk(c.name, w.scaled, w.idx, w.vals); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := readSparseChunks(p, c.name)
			if err != nil {
				t.Fatal(err)
			}
			if !sameChunks(got, want) {
				t.Fatalf("h5core reads %d chunks after the commit, want %d as written", len(got), len(want))
			}
			dec, err := sparsetest.Decode(p, c.name, c.dtype)
			if err != nil {
				t.Fatal(err)
			}
			if len(dec.COO) != len(want) {
				t.Errorf("the independent decoder reads %d elements, want %d", len(dec.COO), len(want))
			}
			t.Logf("%d chunks (%d erased), %d crash states", len(keys), len(keys)-len(want), n)
		})
	}
}

// TestCreateSparseDatasetCrash replays creating structured-chunk sparse
// datasets (what sparsify, import-mtx and densify's sources start
// with) and storing their first chunks, one transaction each, in a
// symbol-table group (earliest) and a compact one (latest): fixed
// array, extensible array with filtered sections, v2 B-tree.
func TestCreateSparseDatasetCrash(t *testing.T) {
	deflate := []h5core.Filter{{ID: h5core.FilterDeflate, ClientData: []uint32{6}}}
	typ, err := h5core.NumberType(true, true, 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file, name string
		spec       h5core.DatasetSpec
	}{
		{"earliest", "sp_fa", h5core.DatasetSpec{Dims: []uint64{10, 10}}},
		{"earliest", "sp_ea", h5core.DatasetSpec{Dims: []uint64{10, 10}, MaxDims: []uint64{h5core.Unlimited, 10}, SectionFilters: [][]h5core.Filter{deflate, deflate}}},
		{"latest", "sp_bt2", h5core.DatasetSpec{Dims: []uint64{10, 10}, MaxDims: []uint64{h5core.Unlimited, h5core.Unlimited}, SectionFilters: [][]h5core.Filter{nil, {{ID: h5core.FilterShuffle}, deflate[0]}}}},
	} {
		t.Run(c.file+"/"+c.name, func(t *testing.T) {
			p := copyFixture(t, c.file)
			path := "/t/" + c.name
			n, err := replaySparseTx(t, p, &crashtest.Recorder{}, func(tx *h5core.Tx) error {
				s := c.spec
				s.Type, s.Chunk, s.Sparse = typ, []uint64{4, 4}, true
				if err := tx.CreateDataset("/t", c.name, s); err != nil {
					return err
				}
				if err := tx.WriteSparseChunk(path, []uint64{0, 0}, []uint64{0, 5}, le(8, true, 1.5, 2.5)); err != nil {
					return err
				}
				return tx.WriteSparseChunk(path, []uint64{2, 1}, []uint64{1}, le(8, true, 3.5))
			})
			if err != nil {
				t.Fatal(err)
			}
			dec, err := sparsetest.Decode(p, path, "<f8")
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(dec.COO); got != "[[0 0 1.5] [1 1 2.5] [8 5 3.5]]" {
				t.Errorf("the independent decoder reads %s", got)
			}
			t.Logf("%d crash states", n)
		})
	}
}

// TestSparseCommitCrashCatchesMissingSync replays a v2 B-tree commit
// with the journal's fsyncs dropped from the record: a crash state then
// keeps an overwritten index node without the journal that restores it,
// and the harness must find it.
func TestSparseCommitCrashCatchesMissingSync(t *testing.T) {
	p := copySparseFixture(t, "sparse_2d_int32_bt2.h5")
	chunks, err := readSparseChunks(p, "/int32_bt2")
	if err != nil {
		t.Fatal(err)
	}
	rec := &crashtest.Recorder{DropSync: func(name string) bool { return strings.HasSuffix(name, "-journal") }}
	_, err = replaySparseTx(t, p, rec, func(tx *h5core.Tx) error {
		for _, k := range sortedKeys(chunks) {
			if err := tx.WriteSparseChunk("/int32_bt2", chunks[k].scaled, nil, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		t.Fatal("a commit whose journal is never fsynced passed the crash replay")
	}
	t.Logf("caught: %v", err)
}
