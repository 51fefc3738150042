package fuse_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestWriteNothingCommitted: what a read-write mount refuses or cannot
// line up leaves the file as it was, byte for byte, and the log says
// why — a malformed CSV line names its line and column; rows appended
// to some columns' .raw files only are dropped at unmount with a line
// naming the column.
func TestWriteNothingCommitted(t *testing.T) {
	src := filepath.Join(fusetest.OwnCorpus, "write.h5")
	name := fusetest.CopyFile(t, src)
	orig, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	logs := &mountLog{t: t}
	mp, unmount := fusetest.MountRW(t, name, logs)
	csv := filepath.Join(mp, "t.csv")
	lines := viewLines(t, csv)

	// A valid line, then one whose x does not fit an int32.
	at := logs.count()
	if err := fusetest.Append(csv, []byte("1,2,3,ok\n300000000000,0,0,x\n")); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("appending a line whose x is out of range: %v, want EINVAL", err)
	}
	why := logs.since(at)
	if !strings.Contains(why, "line 2") || !strings.Contains(why, `column "x"`) {
		t.Errorf("the refusal's log line does not name line 2 and column x: %q", why)
	}
	t.Logf("refused: %s", why)

	// Two rows of x and e, none of k and tag: they never line up.
	var b bytes.Buffer
	for _, v := range []int32{7, 8} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	if err := fusetest.Append(filepath.Join(mp, "t", "x.raw"), b.Bytes()); err != nil {
		t.Fatalf("x.raw: %v", err)
	}
	b.Reset()
	for _, v := range []float64{0.5, 1.5} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	if err := fusetest.Append(filepath.Join(mp, "t", "e.raw"), b.Bytes()); err != nil {
		t.Fatalf("e.raw: %v", err)
	}
	if got := viewLines(t, csv); len(got) != len(lines) {
		t.Errorf("t.csv has %d lines after refused and unaligned appends, want %d", len(got), len(lines))
	}
	if st, err := os.Stat(filepath.Join(mp, "t", "x.raw")); err != nil || st.Size() != int64(4*(len(lines)-1)) {
		t.Errorf("x.raw: %v, size %d, want %d (rows not lined up are not shown)", err, st.Size(), 4*(len(lines)-1))
	}
	unmount()

	var dropped []string
	for _, l := range logs.lines {
		if strings.Contains(l, "never lined up") {
			dropped = append(dropped, l)
		}
	}
	t.Logf("at unmount: %q", dropped)
	if len(dropped) != 2 || !strings.Contains(strings.Join(dropped, "\n"), "8 bytes appended to x.raw") || !strings.Contains(strings.Join(dropped, "\n"), "16 bytes appended to e.raw") {
		t.Errorf("at unmount the log says %q, want x.raw's 8 and e.raw's 16 bytes dropped", dropped)
	}
	now, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(now, orig) {
		t.Error("the file changed though nothing was committed")
	}
	if _, err := os.Stat(name + "-journal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a journal is left: %v", err)
	}
}

// viewLines returns the lines of a text view of a mount.
func viewLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
