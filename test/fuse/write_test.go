package fuse

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/internal/h5wasmtest"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// csvLines returns the lines of a CSV view.
func csvLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestWriteAppend appends rows to a table through a read-write kernel
// mount — CSV lines the view itself served, new lines, rows of every
// column's .raw — truncates it, and checks that malformed input and
// writes anywhere else are refused with nothing committed. The file is
// then read by libhdf5 1.10 (h5py, h5dump) and 2.0 (h5wasm), and every
// search index is recomputed from scratch by check_write.py.
func TestWriteAppend(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join(fusetest.OwnCorpus, "write.h5"))
	mp, unmount := fusetest.MountRW(t, name, nil)
	csv := filepath.Join(mp, "t.csv")
	lines := csvLines(t, csv)
	if len(lines) != 41 {
		t.Fatalf("t.csv has %d lines, want 41", len(lines))
	}
	// what the view serves goes back unchanged, header included
	back := strings.Join(append([]string{lines[0]}, lines[1:6]...), "\n") + "\n"
	if err := fusetest.Append(csv, []byte(back+"7,1.5,2,hello\n-3,nan,,\"a,\"\"b\"\"\"\n")); err != nil {
		t.Fatalf("append: %v", err)
	}
	got := csvLines(t, csv)
	want := append(append(append([]string{}, lines...), lines[1:6]...), "7,1.5,2,hello", `-3,,,"a,""b"""`)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the append t.csv ends\n%s\nwant\n%s", strings.Join(got[len(got)-8:], "\n"), strings.Join(want[len(want)-8:], "\n"))
	}
	// a malformed line fails its write; nothing of that open file commits
	for _, bad := range []string{"1,2,3,4\n1,2\n", "1,2,3,4\n300000000000,0,0,x\n", "1,2,3,4\n1,2,-1,x\n", "1,2,3,4\n1,2,3,toolongtag\n"} {
		err := fusetest.Append(csv, []byte(bad))
		if !errors.Is(err, syscall.EINVAL) {
			t.Errorf("appending %q: %v, want EINVAL", bad, err)
		}
	}
	if n := len(csvLines(t, csv)); n != len(want) {
		t.Fatalf("after refused appends t.csv has %d lines, want %d", n, len(want))
	}
	// .raw rows commit once every column has them
	raw := func(col string, v ...any) {
		var b bytes.Buffer
		for _, x := range v {
			if err := binary.Write(&b, binary.LittleEndian, x); err != nil {
				t.Fatal(err)
			}
		}
		if err := fusetest.Append(filepath.Join(mp, "t", col+".raw"), b.Bytes()); err != nil {
			t.Fatalf("%s.raw: %v", col, err)
		}
	}
	raw("x", int32(11), int32(12))
	raw("e", 0.25, 0.5)
	raw("k", uint8(1), uint8(2))
	if n := len(csvLines(t, csv)); n != len(want) {
		t.Fatalf("rows committed before every column had them: %d lines", n)
	}
	raw("tag", [8]byte{'a', 'a'}, [8]byte{'b'})
	want = append(want, "11,0.25,1,aa", "12,0.5,2,b")
	if got := csvLines(t, csv); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after .raw appends t.csv ends %q", got[len(got)-3:])
	}
	// writes elsewhere fail early
	if _, err := os.OpenFile(filepath.Join(mp, "t.arrow"), os.O_WRONLY|os.O_APPEND, 0); !errors.Is(err, syscall.EPERM) {
		t.Errorf("opening t.arrow for writing: %v, want EPERM", err)
	}
	if f, err := os.OpenFile(csv, os.O_WRONLY, 0); err == nil {
		if _, err := f.WriteAt([]byte("x"), 3); !errors.Is(err, syscall.EINVAL) {
			t.Errorf("writing inside t.csv: %v, want EINVAL", err)
		}
		f.Close()
	} else {
		t.Errorf("open t.csv: %v", err)
	}
	if err := os.Truncate(filepath.Join(mp, "t", "x.raw"), 4*30+1); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("truncating x.raw inside a row: %v, want EINVAL", err)
	}
	// truncation to a row boundary
	if err := os.Truncate(filepath.Join(mp, "t", "x.raw"), 4*45); err != nil {
		t.Fatalf("truncate: %v", err)
	}
	want = want[:46]
	if got := csvLines(t, csv); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after truncating to 45 rows t.csv has %d lines", len(got))
	}
	unmount()

	cmd := exec.Command("/usr/bin/python3", "check_write.py", name, "/t")
	cmd.Dir = fusetest.OwnCorpus
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("check_write.py (indexes recomputed from scratch): %v\n%s", err, out)
	}
	py := `import h5py, sys
g = h5py.File(sys.argv[1], "r")["t"]
n = int(g.attrs["NROWS"])
print(n, list(g["x"][40:n]), [t.decode() for t in g["tag"][40:n]])`
	out, err := exec.Command("/usr/bin/python3", "-c", py, name).CombinedOutput()
	if wantPy := fmt.Sprintf("45 [%s] [%s]\n", xsOf(lines[1:6]), tagsOf(lines[1:6])); err != nil || string(out) != wantPy {
		t.Errorf("h5py reads %s(%v), want %s", out, err, wantPy)
	}
	if out, err := exec.Command("h5dump", "-A", name).CombinedOutput(); err != nil {
		t.Errorf("h5dump: %v\n%s", err, out)
	}
	d := h5wasmtest.Dump(t, name, "/t/x")
	if sh := d.Dataset(t, "/t/x").Shape; len(sh) != 1 || sh[0] < 45 {
		t.Errorf("libhdf5 2.0 sees /t/x of shape %v", sh)
	}
}

// xsOf and tagsOf format the x and tag fields of CSV lines as Python
// prints them (a missing x is its fill, -1).
func xsOf(lines []string) string {
	var out []string
	for _, l := range lines {
		x := strings.Split(l, ",")[0]
		if x == "" {
			x = "-1"
		}
		out = append(out, x)
	}
	return strings.Join(out, ", ")
}

func tagsOf(lines []string) string {
	var out []string
	for _, l := range lines {
		f := strings.Split(l, ",")
		out = append(out, "'"+f[len(f)-1]+"'")
	}
	return strings.Join(out, ", ")
}
