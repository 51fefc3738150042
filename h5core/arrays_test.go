package h5core

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
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

// TestArrayHeadersHostile patches the array headers of test files (then
// reseals their checksums) and checks that absurd values are refused, or
// harmless, without large allocations.
func TestArrayHeadersHostile(t *testing.T) {
	u64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	cases := []struct {
		file, sig string
		at        int    // offset of the patch from the header signature
		patch     []byte // bytes written there
		want      string // error text; "" for success
	}{
		{"fa_5000", "FAHD", 8, u64(1 << 39), "runs past the end"},
		{"fa_5000", "FAHD", 8, u64(1 << 62), "fixed array of"},
		{"fa_5000", "FAHD", 8, u64(10), "fixed array of 10 entries for 5000 chunks"},
		{"fa_5000", "FAHD", 7, []byte{200}, "page size"},
		{"fa_5000", "FAHD", 7, []byte{16}, "checksum mismatch"}, // now one unpaged block
		{"fa_5000", "FAHD", 6, []byte{9}, "entries of 9 bytes"},
		{"fa_5000", "FAHD", 5, []byte{2}, "structured chunks"},
		{"fa_5000", "FAHD", 4, []byte{7}, "version 7"},
		{"fa_5000", "FAHD", 16, u64(undefAddr), ""},
		{"fa_gzip", "FAHD", 6, []byte{30}, "filtered chunk entries of 30 bytes"},
		{"ea_1000", "EAHD", 44, u64(1 << 50), "extensible array of"},
		{"ea_1000", "EAHD", 44, u64(1 << 32), ""}, // legal: unset blocks
		{"ea_1000", "EAHD", 7, []byte{0}, "2^0 entries"},
		{"ea_1000", "EAHD", 7, []byte{64}, "index block checksum"}, // more super blocks
		{"ea_1000", "EAHD", 9, []byte{3}, "data blocks of 3 entries"},
		{"ea_1000", "EAHD", 10, []byte{0}, "super blocks of 0"},
		{"ea_1000", "EAHD", 10, []byte{128}, "index block addresses 14 super blocks"},
		{"ea_1000", "EAHD", 11, []byte{99}, "page size"},
		{"ea_1000", "EAHD", 8, []byte{255}, "checksum mismatch"},
		{"ea_20000", "EAHD", 60, u64(undefAddr), ""},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_%s+%d=%x", c.file, c.sig, c.at, c.patch), func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "arrays", c.file+".h5"))
			if err != nil {
				t.Fatal(err)
			}
			h := bytes.Index(b, []byte(c.sig))
			copy(b[h+c.at:], c.patch)
			b = resealHeaders(b)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err = listAndRead(b, "/"+c.file)
			runtime.ReadMemStats(&after)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("error %v, want %q", err, c.want)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
				t.Errorf("allocated %d bytes", n)
			}
		})
	}
}

// TestArrayBlockCorrupt flips a byte of a fixed array data block (its page
// bitmap, a page) and of an extensible array super block: the reads that
// need them fail.
func TestArrayBlockCorrupt(t *testing.T) {
	for _, c := range []struct {
		file, sig string
		at        int
		want      string
	}{
		{"fa_1025", "FADB", 14, "fixed array data block checksum"},
		{"fa_1025", "FADB", 20, "fixed array data block page checksum"},
		{"ea_20000", "EASB", 20, "extensible array super block checksum"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "arrays", c.file+".h5"))
		if err != nil {
			t.Fatal(err)
		}
		b[bytes.Index(b, []byte(c.sig))+c.at]++
		if err := listAndRead(b, "/"+c.file); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.file, err, c.want)
		}
	}
}

// listAndRead lists the chunks of the dataset at path in the file data and
// reads all of it.
func listAndRead(data []byte, path string) error {
	f, err := NewFile(bytes.NewReader(data), int64(len(data)), "hostile.h5", Options{})
	if err != nil {
		return err
	}
	o, err := f.Open(path)
	if err != nil {
		return err
	}
	ds, err := o.Dataset()
	if err != nil {
		return err
	}
	if _, err := ds.Chunks(); err != nil {
		return err
	}
	_, err = ds.ReadAt(make([]byte, ds.Size()), 0)
	if err == io.EOF {
		err = nil
	}
	return err
}
