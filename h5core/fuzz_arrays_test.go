package h5core

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// FuzzFixedArray opens mutated fixed array test files and lists and reads
// their datasets: any error is fine, a panic or a runaway allocation is not.
func FuzzFixedArray(f *testing.F) { fuzzArrays(f, "fa_", IndexFixedArray) }

// FuzzExtensibleArray does the same with the extensible array test files.
func FuzzExtensibleArray(f *testing.F) { fuzzArrays(f, "ea_", IndexExtensibleArr) }

// fuzzSeedMax keeps the largest test files out of the seed corpus: each
// fuzz input is parsed whole, and small inputs mutate into more cases.
const fuzzSeedMax = 64 << 10

func fuzzArrays(f *testing.F, prefix string, kind ChunkIndexKind) {
	files, err := filepath.Glob(filepath.Join("testdata", "arrays", prefix+"*.h5"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files (%v)", err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= fuzzSeedMax {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		openAndRead(data, kind)
		openAndRead(resealHeaders(data), kind)
	})
}

// resealHeaders returns a copy of data with the checksums of the array
// headers in it (as the seed files lay them out: 8-byte offsets and
// lengths) recomputed, so that mutated counts and parameters get past the
// checksum and reach the decoding.
func resealHeaders(data []byte) []byte {
	out := bytes.Clone(data)
	for sig, size := range map[string]int{"FAHD": 28, "EAHD": 72} {
		for i := 0; ; i++ {
			j := bytes.Index(out[i:], []byte(sig))
			if j < 0 || i+j+size > len(out) {
				break
			}
			i += j
			binary.LittleEndian.PutUint32(out[i+size-4:], lookup3(out[i:i+size-4], 0))
		}
	}
	return out
}

// openAndRead opens data as a file and lists and reads its datasets that
// use the chunk index kind.
func openAndRead(data []byte, kind ChunkIndexKind) {
	h, err := NewFile(bytes.NewReader(data), int64(len(data)), "fuzz.h5", Options{ChunkCacheBytes: 1 << 20})
	if err != nil {
		return
	}
	root, err := h.Root()
	if err != nil {
		return
	}
	links, err := root.Links()
	if err != nil {
		return
	}
	for _, l := range links {
		if l.Type != LinkHard {
			continue
		}
		o, err := h.object("/"+l.Name, l.Addr)
		if err != nil {
			continue
		}
		ds, err := o.Dataset()
		if err != nil || ds.Layout() != "chunked" || ds.ChunkIndexKind() != kind {
			continue
		}
		ds.Chunks()
		readSome(ds)
	}
}

// readSome reads the start and the end of a dataset, when a read of a few
// rows touches a bounded number of chunks (the chunked read path lists the
// chunks of whole rows).
func readSome(ds *Dataset) {
	g := ds.geom
	if n, ok := numChunks(g.grid(g.dims)[1:]); !ok || n > 1<<16 {
		return
	}
	n := min(ds.Size(), 256)
	if n <= 0 {
		return
	}
	p := make([]byte, n)
	ds.ReadAt(p, 0)
	ds.ReadAt(p, ds.Size()-n)
}
