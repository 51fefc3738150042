package h5core

import (
	"encoding/binary"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
)

// TestExternalDataFiles reads gen_external.py's datasets whose raw data is
// in external files (two files with an offset, an unlimited slot, a
// subfolder, a file shorter than its slot) and compares them with what
// libhdf5 (h5py) reads; a missing file is an error, and names leading out
// of the file's folder or absolute are refused although libhdf5 follows
// them.
func TestExternalDataFiles(t *testing.T) {
	dir := t.TempDir()
	var want map[string]struct {
		Raw     *string `json:"raw"`
		Error   string  `json:"error"`
		Refused bool    `json:"refused"`
	}
	runH5pyGen(t, "gen_external.py", dir, &want)
	f, err := Open(filepath.Join(dir, "in", "ext.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for path, w := range want {
		t.Run(path, func(t *testing.T) {
			ds := openDataset(t, f, path)
			got := make([]byte, ds.Size())
			_, err := ds.ReadAt(got, 0)
			switch {
			case w.Refused:
				if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), path) {
					t.Fatalf("read %x; want an error naming %s and saying the file name is refused", got, path)
				}
			case w.Raw == nil:
				if err == nil || !strings.Contains(err.Error(), "external data file") {
					t.Fatalf("read %x; libhdf5 fails (%s)", got, w.Error)
				}
			case err != nil:
				t.Fatal(err)
			case hex.EncodeToString(got) != *w.Raw:
				t.Fatalf("data %x, libhdf5 %s", got, *w.Raw)
			}
			// a read in the middle, across slots where there are two
			if w.Raw != nil && !w.Refused && len(got) > 6 {
				mid := make([]byte, len(got)-6)
				if _, err := ds.ReadAt(mid, 3); err != nil {
					t.Fatal(err)
				}
				if hex.EncodeToString(mid) != (*w.Raw)[6:len(*w.Raw)-6] {
					t.Fatalf("bytes 3..%d: %x", len(got)-3, mid)
				}
			}
		})
	}
}

// TestExternalDataPath checks which names h5core resolves.
func TestExternalDataPath(t *testing.T) {
	f := &File{name: "/data/run/f.h5"}
	for name, want := range map[string]string{
		"a.bin": "/data/run/a.bin", "sub/../b.bin": "/data/run/b.bin", "./x/c.bin": "/data/run/x/c.bin",
		"/etc/passwd": "", "../f.bin": "", "sub/../../f.bin": "", "..": "", "": "",
	} {
		got, err := f.externalDataPath(name)
		if (err != nil) != (want == "") || got != want {
			t.Errorf("%q: got %q, %v; want %q", name, got, err, want)
		}
	}
}

// FuzzExternalFiles parses arbitrary External Data Files messages (with
// their local heap in the same bytes): no input may panic or allocate
// beyond the input's size.
func FuzzExternalFiles(f *testing.F) {
	seed := make([]byte, 80)
	copy(seed, []byte{1, 0, 0, 0, 1, 0, 1, 0, 40}) // version, slots, heap at 40
	binary.LittleEndian.PutUint64(seed[24:], 16)   // offset in the file
	binary.LittleEndian.PutUint64(seed[32:], 100)  // size
	copy(seed[40:], "HEAP")
	seed[48] = 8                                         // data segment size
	binary.LittleEndian.PutUint64(seed[56:], ^uint64(0)) // no free list
	seed[64] = 72                                        // data segment address
	copy(seed[72:], "a.bin\x00")
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		slots, err := rawFile(b).parseExternalFiles(b, 0)
		if err == nil && len(slots)*24 > len(b) {
			t.Fatalf("%d slots from %d bytes", len(slots), len(b))
		}
	})
}
