package h5core_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
	"github.com/h5fs/h5fs/internal/sparsetest"
)

// spaceCrashDataset is the dataset the space-reuse crash tests rewrite:
// 24 filtered int32 chunks of 4 x 4 in a fixed array.
const (
	spaceCrashFile    = "sparse_2d_int32_fa.h5"
	spaceCrashDataset = "/int32_fa_filtered"
)

// sparseChunk is one stored chunk: its scaled coordinates, positions and
// values.
type sparseChunk struct {
	scaled []uint64
	idx    []uint64
	vals   []byte
}

// readSparseChunks reads every stored chunk of a sparse dataset, keyed
// by its scaled coordinates.
func readSparseChunks(path, name string) (map[string]sparseChunk, error) {
	f, err := h5core.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	ds, err := o.Dataset()
	if err != nil {
		return nil, err
	}
	infos, err := ds.SparseChunks()
	if err != nil {
		return nil, err
	}
	out := map[string]sparseChunk{}
	for _, c := range infos {
		sc, err := ds.ReadSparseChunk(c, true)
		if err != nil {
			return nil, err
		}
		idx, vals, err := sc.Positions()
		if err != nil {
			return nil, err
		}
		scaled := make([]uint64, len(c.Offset))
		for i, o := range c.Offset {
			scaled[i] = o / ds.ChunkShape()[i]
		}
		out[fmt.Sprint(scaled)] = sparseChunk{scaled, idx, vals}
	}
	return out, nil
}

func sameChunks(a, b map[string]sparseChunk) bool {
	return maps.EqualFunc(a, b, func(x, y sparseChunk) bool {
		return fmt.Sprint(x.idx) == fmt.Sprint(y.idx) && bytes.Equal(x.vals, y.vals)
	})
}

// rewriteChunks stores every chunk of chunks again in one transaction,
// through edit (which returns the positions and values to store), in
// row-major chunk order. With releaseEarly the space each rewrite frees
// is made reusable at once (ReleaseFreed), as a broken allocator would.
func rewriteChunks(rw *h5core.RW, chunks map[string]sparseChunk, edit func(sparseChunk) ([]uint64, []byte), releaseEarly bool) error {
	tx, err := rw.Begin()
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(chunks) {
		c := chunks[k]
		idx, vals := edit(c)
		if err := tx.WriteSparseChunk(spaceCrashDataset, c.scaled, idx, vals); err != nil {
			tx.Rollback()
			return err
		}
		if releaseEarly {
			h5core.ReleaseFreed(tx)
		}
	}
	return tx.Commit()
}

// sortedKeys returns the keys of chunks in the order the chunks lie in
// the dataset (row-major).
func sortedKeys(chunks map[string]sparseChunk) []string {
	return slices.SortedFunc(maps.Keys(chunks), func(a, b string) int {
		return slices.Compare(chunks[a].scaled, chunks[b].scaled)
	})
}

// unchanged stores a chunk as it is (moving it: its old space is freed).
func unchanged(c sparseChunk) ([]uint64, []byte) { return c.idx, c.vals }

// shrunk keeps the first position of a chunk with a new value: a chunk
// smaller than any stored one, so it fits any freed chunk's space.
func shrunk(c sparseChunk) ([]uint64, []byte) {
	v := binary.LittleEndian.Uint32(c.vals) ^ 0x5a5a
	return c.idx[:1], binary.LittleEndian.AppendUint32(nil, v)
}

// replaySpaceReuse commits, on a copy of the fixture, first (when
// moveFirst) a transaction that moves every chunk, then one that shrinks
// every chunk into reusable space, and replays every crash state of
// both: after recovery h5core and the independent decoder read exactly
// the chunks before or after the second (the first changes no element),
// and before recovery libhdf5 lists the file as it did. It returns the first
// crash state that breaks this and whether the second commit was
// written entirely in reused space (the file did not grow).
func replaySpaceReuse(t *testing.T, moveFirst, releaseEarly bool) (reused bool, err error) {
	t.Helper()
	p := copySparseFixture(t, spaceCrashFile)
	orig := p + ".orig.h5"
	if b, err := os.ReadFile(p); err != nil || os.WriteFile(orig, b, 0o644) != nil {
		t.Fatal("copy", err)
	}
	rec := &crashtest.Recorder{}
	rw, err := h5core.OpenRWWith(p, h5core.RWOptions{FS: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	oldC, err := readSparseChunks(p, spaceCrashDataset)
	if err != nil {
		t.Fatal(err)
	}
	// the replay starts before the first commit: a crash may undo the
	// removal of its journal (left unsynced) and roll it back
	snap, err := crashtest.Take(p, h5core.JournalPath(p))
	if err != nil {
		t.Fatal(err)
	}
	if moveFirst {
		if err := rewriteChunks(rw, oldC, unchanged, false); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := rewriteChunks(rw, oldC, shrunk, releaseEarly); err != nil {
		t.Fatal(err)
	}
	fi2, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	newC, err := readSparseChunks(p, spaceCrashDataset)
	if err != nil {
		t.Fatal(err)
	}
	if sameChunks(oldC, newC) {
		t.Fatal("the commit changed nothing")
	}
	crashes, err := crashtest.Replay(snap, rec.Ops(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	decoded := map[bool]int{}
	err = sparsetest.CheckCrashes(crashes, p, orig, func(_ crashtest.Crash, cp string) error {
		got, err := readSparseChunks(cp, spaceCrashDataset)
		if err != nil {
			return fmt.Errorf("after recovery: %v", err)
		}
		isNew := sameChunks(got, newC)
		if !isNew && !sameChunks(got, oldC) {
			return fmt.Errorf("after recovery neither the old nor the new chunks")
		}
		if decoded[isNew] < 2 {
			decoded[isNew]++
			return decoderAgrees(cp, got)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	t.Logf("%d crash states, recovered to old/new: decoded %v; file %d -> %d bytes", len(crashes), decoded, fi.Size(), fi2.Size())
	return fi2.Size() == fi.Size(), nil
}

// decoderAgrees checks that the independent decoder reads the elements
// of chunks (int32) from the dataset.
func decoderAgrees(path string, chunks map[string]sparseChunk) error {
	dec, err := sparsetest.Decode(path, spaceCrashDataset, "<i4")
	if err != nil {
		return err
	}
	want := 0
	for _, c := range chunks {
		want += len(c.idx)
	}
	if len(dec.COO) != want {
		return fmt.Errorf("the independent decoder reads %d elements, h5core %d", len(dec.COO), want)
	}
	for _, row := range dec.COO {
		r, col := uint64(row[0]), uint64(row[1])
		c, ok := chunks[fmt.Sprint([]uint64{r / 4, col / 4})]
		if !ok {
			return fmt.Errorf("the independent decoder reads (%d, %d), in no chunk h5core reads", r, col)
		}
		pos := r%4*4 + col%4
		found := false
		for i, p := range c.idx {
			if p == pos {
				found = float64(int32(binary.LittleEndian.Uint32(c.vals[4*i:]))) == row[2]
			}
		}
		if !found {
			return fmt.Errorf("the independent decoder reads (%d, %d) = %v, h5core not", r, col, row[2])
		}
	}
	return nil
}

// TestSparseSpaceReuseCrashReplay replays a commit whose chunks all land
// in space an earlier commit freed (written in place, unjournaled):
// every crash state recovers to the old or the new chunks.
func TestSparseSpaceReuseCrashReplay(t *testing.T) {
	reused, err := replaySpaceReuse(t, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reused {
		t.Fatal("the commit grew the file: it reused no freed space")
	}
}

// TestSparseSpaceReuseCrashReplayCatchesEarlyReuse replays a commit that
// reuses the space it frees itself, before it commits: a crash then
// leaves the old index pointing at overwritten chunks, and the harness
// must find that state.
func TestSparseSpaceReuseCrashReplayCatchesEarlyReuse(t *testing.T) {
	_, err := replaySpaceReuse(t, false, true)
	if err == nil {
		t.Fatal("a commit reusing the space it freed itself passed the crash replay")
	}
	t.Logf("caught: %v", err)
}
