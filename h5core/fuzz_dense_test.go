package h5core

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The fuzz targets patch a seed file and read it back. Random bytes
// rarely survive the checksums that guard every v2 structure, so unless
// the fuzzer asks for raw mode the harness re-checksums, after patching,
// every checksummed structure it found in the unpatched seed: the patched
// values then reach the decoders.

// fuzzSeed is a seed file with the checksummed structures found in it.
type fuzzSeed struct {
	data []byte
	sums []checksumSpan
}

// checksumSpan is a structure [at, at+n) whose checksum is its last four
// bytes, or, for a direct block (field >= 0), the four bytes at at+field
// computed over the block with them zeroed.
type checksumSpan struct {
	at, n int
	field int
}

var (
	denseFuzzSeedsOnce sync.Once
	denseFuzzSeeds     map[string]*fuzzSeed
)

func loadFuzzSeeds(t testing.TB) map[string]*fuzzSeed {
	denseFuzzSeedsOnce.Do(func() {
		denseFuzzSeeds = map[string]*fuzzSeed{}
		for _, name := range []string{"small.h5", "sohm.h5", "chunks.h5"} {
			b, err := os.ReadFile(filepath.Join("testdata", "dense", name))
			if err != nil {
				continue
			}
			denseFuzzSeeds[name] = &fuzzSeed{data: b, sums: findChecksums(b)}
		}
	})
	if len(denseFuzzSeeds) == 0 {
		t.Fatal("no fuzz seed files in testdata/dense")
	}
	return denseFuzzSeeds
}

// findChecksums locates the checksummed structures of a valid file by
// their signatures and the lengths at which their checksums match.
func findChecksums(b []byte) []checksumSpan {
	var spans []checksumSpan
	for _, sig := range []string{"OHDR", "OCHK", "BTHD", "BTIN", "BTLF", "FRHP", "FHIB", "SMTB"} {
		for at := 0; ; at++ {
			i := bytes.Index(b[at:], []byte(sig))
			if i < 0 {
				break
			}
			at += i
			for n := 10; n <= 1<<13 && at+n <= len(b); n++ {
				if lookup3(b[at:at+n-4], 0) == binary.LittleEndian.Uint32(b[at+n-4:]) {
					spans = append(spans, checksumSpan{at: at, n: n, field: -1})
					break
				}
			}
		}
	}
	for at := 0; ; at++ {
		i := bytes.Index(b[at:], []byte("FHDB"))
		if i < 0 {
			break
		}
		at += i
	search:
		for n := 512; n <= 1<<16 && at+n <= len(b); n *= 2 {
			for field := 5 + 8 + 1; field <= 5+8+8; field++ {
				if directBlockSum(b[at:at+n], field) == binary.LittleEndian.Uint32(b[at+field:]) {
					spans = append(spans, checksumSpan{at: at, n: n, field: field})
					break search
				}
			}
		}
	}
	return spans
}

// directBlockSum is the checksum of a direct block whose checksum field
// is at field.
func directBlockSum(blk []byte, field int) uint32 {
	c := bytes.Clone(blk)
	clear(c[field : field+4])
	return lookup3(c, 0)
}

// patched returns the seed with patch written at off and, unless raw, its
// checksums recomputed.
func (s *fuzzSeed) patched(off uint32, patch []byte, raw bool) []byte {
	b := bytes.Clone(s.data)
	if len(patch) > 64 {
		patch = patch[:64]
	}
	copy(b[int(off)%len(b):], patch)
	if raw {
		return b
	}
	for _, c := range s.sums {
		if c.field < 0 {
			binary.LittleEndian.PutUint32(b[c.at+c.n-4:], lookup3(b[c.at:c.at+c.n-4], 0))
		} else {
			binary.LittleEndian.PutUint32(b[c.at+c.field:], directBlockSum(b[c.at:c.at+c.n], c.field))
		}
	}
	return b
}

// exerciseFile reads every object reachable from the root (bounded): its
// links, attributes and, for chunked datasets, chunk list and first bytes.
func exerciseFile(b []byte) {
	f, err := NewFile(bytes.NewReader(b), int64(len(b)), "fuzz.h5", Options{ChunkCacheBytes: 1 << 20})
	if err != nil {
		return
	}
	seen := map[uint64]bool{}
	var visit func(o *Object, depth int)
	visit = func(o *Object, depth int) {
		if depth > 8 || seen[o.Addr] || len(seen) > 256 {
			return
		}
		seen[o.Addr] = true
		o.Attributes()
		if o.Kind() == KindDataset && smallElements(o) {
			if ds, err := o.Dataset(); err == nil && ds.layout.class == layoutChunked {
				ds.Chunks()
				buf := make([]byte, min(ds.Size(), 4096))
				ds.ReadAt(buf, 0)
			}
		}
		links, _ := o.Links()
		for _, l := range links {
			if l.Type != LinkHard {
				continue
			}
			if c, err := o.OpenLink(l); err == nil {
				visit(c, depth+1)
			}
		}
	}
	if root, err := f.Root(); err == nil {
		visit(root, 0)
	}
}

// smallElements reports a datatype of at most 64 KiB per element.
// Dataset() allocates one element for the fill value before any check,
// so a patched element size would spend the run in memclr (found by
// FuzzBtree2; dataset.go's business, reported).
func smallElements(o *Object) bool {
	m := o.oh.find(msgDatatype)
	if m == nil {
		return false
	}
	t, _, err := parseDatatype(m.data, m.addr)
	return err == nil && t.Size <= 1<<16
}

func fuzzSeedCorpus(f *testing.F) {
	seeds := loadFuzzSeeds(f)
	for name, s := range seeds {
		f.Add(name, uint32(0), []byte(nil), false)
		f.Add(name, uint32(len(s.data)/2), []byte{0xff}, true)
	}
}

// FuzzBtree2 patches the seed files and reads every group, attribute and
// chunk index in them: v2 B-trees of link and attribute names, of chunks
// and of huge objects.
func FuzzBtree2(f *testing.F) {
	fuzzSeedCorpus(f)
	seeds := loadFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, name string, off uint32, patch []byte, raw bool) {
		s := seeds[name]
		if s == nil {
			return
		}
		exerciseFile(s.patched(off, patch, raw))
	})
}

// FuzzFractalHeap patches the seed files around their fractal heaps and
// asks each heap for the objects named in its name indexes, and for heap
// IDs taken from the patch itself.
func FuzzFractalHeap(f *testing.F) {
	fuzzSeedCorpus(f)
	seeds := loadFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, name string, off uint32, patch []byte, raw bool) {
		s := seeds[name]
		if s == nil {
			return
		}
		// Aim at heap structures: off picks one of them.
		var heaps []int
		for _, c := range s.sums {
			if sig := string(s.data[c.at : c.at+4]); sig == "FRHP" || sig == "FHIB" || sig == "FHDB" {
				heaps = append(heaps, c.at)
			}
		}
		if len(heaps) > 0 {
			off = uint32(heaps[int(off>>16)%len(heaps)]) + off&0xffff
		}
		b := s.patched(off, patch, raw)
		exerciseFile(b)
		g, err := NewFile(bytes.NewReader(b), int64(len(b)), "fuzz.h5", Options{})
		if err != nil {
			return
		}
		for _, at := range heaps {
			if string(s.data[at:at+4]) != "FRHP" {
				continue
			}
			for i := 0; i+8 <= len(patch); i += 8 {
				g.fractalHeapObject(uint64(at)-g.base, patch[i:i+8])
			}
		}
	})
}
