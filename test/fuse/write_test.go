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

// appendTo appends text to the file at name as `cat >> name` does.
var appendTo = fusetest.Append

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
	if err := appendTo(csv, []byte(back+"7,1.5,2,hello\n-3,nan,,\"a,\"\"b\"\"\"\n")); err != nil {
		t.Fatalf("append: %v", err)
	}
	got := csvLines(t, csv)
	want := append(append(append([]string{}, lines...), lines[1:6]...), "7,1.5,2,hello", `-3,,,"a,""b"""`)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the append t.csv ends\n%s\nwant\n%s", strings.Join(got[len(got)-8:], "\n"), strings.Join(want[len(want)-8:], "\n"))
	}
	// a malformed line fails its write; nothing of that open file commits
	for _, bad := range []string{"1,2,3,4\n1,2\n", "1,2,3,4\n300000000000,0,0,x\n", "1,2,3,4\n1,2,-1,x\n", "1,2,3,4\n1,2,3,toolongtag\n"} {
		err := appendTo(csv, []byte(bad))
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
		if err := appendTo(filepath.Join(mp, "t", col+".raw"), b.Bytes()); err != nil {
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

	checkIndexes(t, name)
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

// checkIndexes checks the table /t of a file the mount wrote: every
// search index recomputed from what libhdf5 reads (check_write.py, which
// also finds indexes left unreferenced) and by `h5fs check
// --verify-indexes`.
func checkIndexes(t *testing.T, name string) {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", "check_write.py", name, "/t")
	cmd.Dir = fusetest.OwnCorpus
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("check_write.py (indexes recomputed from scratch): %v\n%s", err, out)
	}
	if out, err := exec.Command(fusetest.Binary(t), "check", "--verify-indexes", name).CombinedOutput(); err != nil {
		t.Errorf("h5fs check --verify-indexes: %v\n%s", err, out)
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

// TestWriteUpdate rewrites cells through a read-write kernel mount:
// pwrite of whole elements inside a column's .raw file (from Go and from
// Python's os.pwrite), committed at fsync and at close, across a chunk
// boundary and with a write that runs on past the end (its tail an
// append); writes inside that are not whole elements are refused. The
// file is then checked by h5py, check_write.py (every index recomputed
// from what libhdf5 reads), `h5fs check --verify-indexes` and h5dump.
func TestWriteUpdate(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join(fusetest.OwnCorpus, "write.h5"))
	mp, unmount := fusetest.MountRW(t, name, nil)
	csv := filepath.Join(mp, "t.csv")
	lines := csvLines(t, csv)
	le := func(v ...any) []byte {
		var b bytes.Buffer
		for _, x := range v {
			if err := binary.Write(&b, binary.LittleEndian, x); err != nil {
				t.Fatal(err)
			}
		}
		return b.Bytes()
	}
	field := func(l string, j int) string { return strings.Split(l, ",")[j] }

	f, err := os.OpenFile(filepath.Join(mp, "t", "x.raw"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		off int64
		p   []byte
	}{{3 * 4, le(int32(4242))}, {15 * 4, le(int32(-77), int32(88), int32(99))}} {
		if _, err := f.WriteAt(w.p, w.off); err != nil {
			t.Fatalf("pwrite x.raw at %d: %v", w.off, err)
		}
	}
	for _, bad := range []struct {
		off int64
		p   []byte
	}{{5, le(int32(1))}, {8, []byte{1, 2}}, {41 * 4, le(int32(1))}} {
		if _, err := f.WriteAt(bad.p, bad.off); !errors.Is(err, syscall.EINVAL) {
			t.Errorf("pwrite of %d bytes at %d into x.raw: %v, want EINVAL", len(bad.p), bad.off, err)
		}
	}
	if got := field(csvLines(t, csv)[4], 0); got != field(lines[4], 0) {
		t.Errorf("x[3] is %s before the fsync, want %s", got, field(lines[4], 0))
	}
	if err := f.Sync(); err != nil {
		t.Fatalf("fsync x.raw: %v", err)
	}
	got := csvLines(t, csv)
	for row, want := range map[int]string{3: "4242", 15: "-77", 16: "88", 17: "99"} {
		if x := field(got[row+1], 0); x != want {
			t.Errorf("after fsync x[%d] = %s, want %s", row, x, want)
		}
	}
	// a write that runs past the end: the cells before it rewritten, the
	// rest an append that waits for the other columns
	if _, err := f.WriteAt(le(int32(5), int32(6)), 39*4); err != nil {
		t.Fatalf("pwrite across the end of x.raw: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("close x.raw: %v", err)
	}
	got = csvLines(t, csv)
	if len(got) != 41 || field(got[40], 0) != "5" {
		t.Errorf("after close t.csv has %d lines, x[39] = %s; want 41 and 5", len(got), field(got[40], 0))
	}
	// Python's os.pwrite: a NaN (the fill: missing) and a value into e
	py := `import os, struct, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.pwrite(fd, struct.pack("<dd", float("nan"), 12.5), 8 * 20)
os.close(fd)`
	if out, err := exec.Command("/usr/bin/python3", "-c", py, filepath.Join(mp, "t", "e.raw")).CombinedOutput(); err != nil {
		t.Fatalf("os.pwrite e.raw: %v\n%s", err, out)
	}
	got = csvLines(t, csv)
	if e20, e21 := field(got[21], 1), field(got[22], 1); e20 != "" || e21 != "12.5" {
		t.Errorf("after os.pwrite e[20:22] = %q, %q; want missing and 12.5", e20, e21)
	}
	unmount()

	checkIndexes(t, name)
	py = `import h5py, sys
g = h5py.File(sys.argv[1], "r")["t"]
print(int(g.attrs["NROWS"]), g["x"][3], list(g["x"][15:18]), g["x"][39], g["e"][20], g["e"][21])`
	out, err := exec.Command("/usr/bin/python3", "-c", py, name).CombinedOutput()
	if want := "40 4242 [-77, 88, 99] 5 nan 12.5\n"; err != nil || string(out) != want {
		t.Errorf("h5py reads %s(%v), want %s", out, err, want)
	}
	if out, err := exec.Command("h5dump", "-d", "/t/x", name).CombinedOutput(); err != nil || !strings.Contains(string(out), "4242") {
		t.Errorf("h5dump /t/x: %v\n%s", err, out)
	}
}

// TestWriteTruncate truncates a table through a read-write kernel mount:
// t.csv to where a line starts (inside a line, inside the header or past
// the end fails with EINVAL), then one column's .raw file, which shrinks
// every column's; an append after it continues from the new end. h5py
// reads the result and check_write.py recomputes every index.
func TestWriteTruncate(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join(fusetest.OwnCorpus, "write.h5"))
	mp, unmount := fusetest.MountRW(t, name, nil)
	csv := filepath.Join(mp, "t.csv")
	lines := csvLines(t, csv)
	lineStart := func(k int) int64 { // offset of line k (0: the header)
		return int64(len(strings.Join(lines[:k], "\n")) + min(k, 1))
	}
	for _, bad := range []int64{lineStart(30) + 1, lineStart(1) - 2, lineStart(41) + 1} {
		if err := os.Truncate(csv, bad); !errors.Is(err, syscall.EINVAL) {
			t.Errorf("truncating t.csv to %d bytes: %v, want EINVAL", bad, err)
		}
	}
	if n := len(csvLines(t, csv)); n != 41 {
		t.Fatalf("after refused truncations t.csv has %d lines", n)
	}
	if err := os.Truncate(csv, lineStart(31)); err != nil {
		t.Fatalf("truncate t.csv to 30 rows: %v", err)
	}
	if got := csvLines(t, csv); strings.Join(got, "\n") != strings.Join(lines[:31], "\n") {
		t.Fatalf("after truncating to 30 rows t.csv has %d lines", len(got))
	}
	if err := os.Truncate(filepath.Join(mp, "t", "e.raw"), 8*20); err != nil {
		t.Fatalf("truncate e.raw to 20 rows: %v", err)
	}
	for col, size := range map[string]int64{"x": 4 * 20, "e": 8 * 20, "k": 20, "tag": 8 * 20} {
		if st, err := os.Stat(filepath.Join(mp, "t", col+".raw")); err != nil || st.Size() != size {
			t.Errorf("after truncating e.raw, %s.raw: %v (%v), want %d bytes", col, st.Size(), err, size)
		}
	}
	if err := appendTo(csv, []byte(lines[40]+"\n")); err != nil {
		t.Fatalf("append after truncation: %v", err)
	}
	want := append(append([]string{}, lines[:21]...), lines[40])
	if got := csvLines(t, csv); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after truncation and append t.csv has\n%s", strings.Join(got, "\n"))
	}
	if err := os.Truncate(csv, 0); err != nil {
		t.Fatalf("truncate t.csv to 0 bytes: %v", err)
	}
	if got := csvLines(t, csv); len(got) != 1 || got[0] != lines[0] {
		t.Fatalf("after truncating to 0 bytes t.csv is %q, want the header alone", got)
	}
	if err := appendTo(csv, []byte(strings.Join(lines[1:4], "\n")+"\n")); err != nil {
		t.Fatalf("append after truncation to 0: %v", err)
	}
	unmount()

	checkIndexes(t, name)
	py := `import h5py, sys
g = h5py.File(sys.argv[1], "r")["t"]
n = int(g.attrs["NROWS"])
print(n, list(g["x"][:n]), [t.decode() for t in g["tag"][:n]])`
	out, err := exec.Command("/usr/bin/python3", "-c", py, name).CombinedOutput()
	if wantPy := fmt.Sprintf("3 [%s] [%s]\n", xsOf(lines[1:4]), tagsOf(lines[1:4])); err != nil || string(out) != wantPy {
		t.Errorf("h5py reads %s(%v), want %s", out, err, wantPy)
	}
}

// TestWriteDropIndex appends through a read-write kernel mount to
// write_fixed.h5, whose table has index datasets that cannot grow: the
// rows commit, the indexes that would have to grow are deleted (and
// logged), and `h5fs check --verify-indexes` and check_write.py (every
// index left recomputed from what libhdf5 reads, none unreferenced) find
// the file consistent.
func TestWriteDropIndex(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join(fusetest.OwnCorpus, "write_fixed.h5"))
	var log bytes.Buffer
	mp, unmount := fusetest.MountRW(t, name, &log)
	csv := filepath.Join(mp, "t.csv")
	lines := csvLines(t, csv)
	if err := appendTo(csv, []byte(strings.Join(lines[1:31], "\n")+"\n")); err != nil {
		t.Fatalf("append: %v", err)
	}
	if got := csvLines(t, csv); strings.Join(got, "\n") != strings.Join(append(lines, lines[1:31]...), "\n") {
		t.Fatalf("after the append t.csv has %d lines, want %d", len(got), 71)
	}
	unmount()
	for _, ix := range []string{"x__sorted_rows", "x__chunk_minmax", "k__bitmap", "tag__chunk_minmax"} {
		if !strings.Contains(log.String(), "/t/SEARCH_INDEXES/"+ix+": search index cannot be kept consistent, deleted") {
			t.Errorf("the log does not tell that %s was deleted:\n%s", ix, log.String())
		}
	}
	checkIndexes(t, name)
	out, err := exec.Command("/usr/bin/python3", "-c", `import h5py, sys; print(int(h5py.File(sys.argv[1], "r")["t"].attrs["NROWS"]))`, name).CombinedOutput()
	if err != nil || string(out) != "70\n" {
		t.Errorf("h5py reads NROWS %s(%v), want 70", out, err)
	}
}

// TestWriteRefusedTable: a table whose columns cannot all grow
// (hep_tables.h5's /run/events: det is compact or contiguous) refuses
// rows: a line its CSV served, appended back, fails at close, with a log
// line naming the column, and nothing is committed. Its columns still
// take cell updates (a contiguous one here), which h5py reads back and
// `h5fs check --verify-indexes` finds consistent.
func TestWriteRefusedTable(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join(fusetest.OwnCorpus, "hep_tables.h5"))
	var log bytes.Buffer
	mp, unmount := fusetest.MountRW(t, name, &log)
	csv := fusetest.WholeTable(mp, "/run/events", "csv")
	lines := csvLines(t, csv)
	if err := appendTo(csv, []byte(lines[len(lines)-1]+"\n")); err == nil {
		t.Errorf("appending a row to a table with a contiguous column succeeded")
	}
	if n := len(csvLines(t, csv)); n != len(lines) {
		t.Errorf("events.csv has %d lines after a refused append, want %d", n, len(lines))
	}
	if !strings.Contains(log.String(), "/run/events") || !strings.Contains(log.String(), "maximum") {
		t.Errorf("the log does not say why the table cannot take rows:\n%s", log.String())
	}
	f, err := os.OpenFile(filepath.Join(mp, "run", "events", "run.raw"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0x92, 0x10}, 7*2); err != nil { // 4242
		t.Fatalf("pwrite run.raw: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("close run.raw: %v", err)
	}
	unmount()
	out, err := exec.Command("/usr/bin/python3", "-c", `import h5py, sys; g = h5py.File(sys.argv[1], "r")["run/events"]; print(g["run"][6], g["run"][7], g["note"][7].decode())`, name).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "1 4242 ") {
		t.Errorf("h5py reads %s(%v), want run[6:8] = 1 4242", out, err)
	}
	if out, err := exec.Command(fusetest.Binary(t), "check", "--verify-indexes", name).CombinedOutput(); err != nil {
		t.Errorf("h5fs check --verify-indexes: %v\n%s", err, out)
	}
}
