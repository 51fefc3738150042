package h5core

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// arrayCase is one dataset of testdata/arrays/*.json, as written by
// testdata/gen_arrays.py from what libhdf5 reports.
type arrayCase struct {
	Path      string
	Addr      uint64 // object header address (fixture datasets)
	Index     string
	Shape     []uint64
	Filtered  bool
	NumChunks int    `json:"num_chunks"`
	Sha256    string // of the raw bytes of the whole dataset
	Chunks    []struct {
		Offset []uint64
		Addr   uint64
		Size   uint64
		Mask   uint32
	}
	ChunksSha256 string `json:"chunks_sha256"`
	AddrSamples  []struct {
		Offset []uint64
		Addr   uint64
	} `json:"addr_samples"`
}

func loadCases(t *testing.T, name string) []arrayCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "arrays", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Datasets []arrayCase }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Datasets
}

func TestArrayIndexes(t *testing.T) {
	for _, c := range loadCases(t, "expected.json") {
		name := strings.TrimPrefix(c.Path, "/")
		t.Run(name, func(t *testing.T) {
			f, err := Open(filepath.Join("testdata", "arrays", name+".h5"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			o, err := f.Open(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			checkArrayDataset(t, o, c)
		})
	}
}

// TestArrayIndexesFixture lists the chunks of the fixed and extensible
// array columns of the shared fixture latest_layouts.h5. Its root group
// uses dense links, so the datasets are opened by object header address.
func TestArrayIndexesFixture(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "fixtures", "hep001", "latest_layouts.h5")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("shared fixtures absent (%v): not checking latest_layouts.h5", err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range loadCases(t, "latest_layouts.json") {
		t.Run(strings.TrimPrefix(c.Path, "/wide/"), func(t *testing.T) {
			o, err := f.object(c.Path, c.Addr)
			if err != nil {
				t.Fatal(err)
			}
			checkArrayDataset(t, o, c)
		})
	}
}

func checkArrayDataset(t *testing.T, o *Object, c arrayCase) {
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.ChunkIndexKind().String(); got != c.Index {
		t.Fatalf("chunk index %s, want %s", got, c.Index)
	}
	chunks, err := ds.Chunks()
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != c.NumChunks {
		t.Fatalf("%d chunks, want %d", len(chunks), c.NumChunks)
	}
	if c.ChunksSha256 != "" {
		checkChunkDigest(t, ds, chunks, c)
	} else {
		for i, got := range chunks {
			w := c.Chunks[i]
			if fmt.Sprint(got.Offset) != fmt.Sprint(w.Offset) || got.Addr != w.Addr || got.StoredSize != w.Size || got.FilterMask != w.Mask {
				t.Errorf("chunk %d: %v %#x %d %#x, want %v %#x %d %#x", i,
					got.Offset, got.Addr, got.StoredSize, got.FilterMask, w.Offset, w.Addr, w.Size, w.Mask)
			}
		}
	}
	checkLookups(t, ds, chunks)
	if !c.Filtered {
		checkRawBytes(t, ds, c.Sha256)
	}
}

// checkChunkDigest checks a long listing against its digest: one line per
// chunk with the hash of the bytes stored at the chunk's address.
func checkChunkDigest(t *testing.T, ds *Dataset, chunks []ChunkInfo, c arrayCase) {
	h := sha256.New()
	at := map[string]uint64{}
	for _, ch := range chunks {
		raw, err := ds.f.read(ch.Addr, ch.StoredSize)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		off := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(ch.Offset)), ","), "[]")
		fmt.Fprintf(h, "%s:%d:%d:%x\n", off, ch.StoredSize, ch.FilterMask, sum)
		at[fmt.Sprint(ch.Offset)] = ch.Addr
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != c.ChunksSha256 {
		t.Errorf("chunk listing digest %s, want %s", got, c.ChunksSha256)
	}
	for _, s := range c.AddrSamples {
		if got := at[fmt.Sprint(s.Offset)]; got != s.Addr {
			t.Errorf("chunk %v at %#x, want %#x", s.Offset, got, s.Addr)
		}
	}
}

// checkLookups looks every chunk of the grid up by its coordinates.
func checkLookups(t *testing.T, ds *Dataset, chunks []ChunkInfo) {
	idx, err := ds.chunkIndex()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ChunkInfo{}
	for _, ch := range chunks {
		want[fmt.Sprint(ch.Offset)] = ch
	}
	g := ds.geom
	err = eachScaled(g.grid(g.dims), func(s []uint64) error {
		loc, err := idx.chunk(s)
		if err != nil {
			return err
		}
		off := make([]uint64, len(s))
		for i := range s {
			off[i] = s[i] * g.chunk[i]
		}
		w, ok := want[fmt.Sprint(off)]
		switch {
		case !ok && loc.addr != undefAddr:
			return fmt.Errorf("chunk %v found at %#x, not stored", off, loc.addr)
		case ok && (loc.addr != w.Addr || loc.size != w.StoredSize || loc.mask != w.FilterMask):
			return fmt.Errorf("chunk %v: %#x %d %#x, want %#x %d %#x", off, loc.addr, loc.size, loc.mask, w.Addr, w.StoredSize, w.FilterMask)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// checkRawBytes reads the whole dataset, compares its hash, then reads
// random ranges (starting and ending inside chunks) against it.
func checkRawBytes(t *testing.T, ds *Dataset, want string) {
	all := make([]byte, ds.Size())
	if n, err := ds.ReadAt(all, 0); err != nil && err != io.EOF || n != len(all) {
		t.Fatalf("ReadAt: %d of %d bytes, %v", n, len(all), err)
	}
	if got := fmt.Sprintf("%x", sha256.Sum256(all)); got != want {
		t.Fatalf("data sha256 %s, want %s", got, want)
	}
	rng := rand.New(rand.NewSource(1))
	for range 50 {
		off := rng.Int63n(int64(len(all)))
		p := make([]byte, rng.Int63n(min(int64(len(all))-off, 1<<16))+1)
		if n, err := ds.ReadAt(p, off); n != len(p) || err != nil && err != io.EOF {
			t.Fatalf("ReadAt(%d bytes at %d): %d, %v", len(p), off, n, err)
		}
		if !bytes.Equal(p, all[off:off+int64(len(p))]) {
			t.Fatalf("ReadAt(%d bytes at %d) differs from the whole read", len(p), off)
		}
	}
}
