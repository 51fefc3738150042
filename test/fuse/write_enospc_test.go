package fuse_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestWriteENOSPC appends rows through a read-write kernel mount of a
// file on a nearly full file system (a small tmpfs): the commit fails
// with ENOSPC at the writer's close, the file is byte for byte as it was
// with no journal left, the mount keeps serving the old table, and once
// there is room again the same append commits.
func TestWriteENOSPC(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "h5fs-enospc", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	src := filepath.Join(fusetest.OwnCorpus, "write.h5")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "write.h5")
	if err := os.WriteFile(name, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	// Fill the file system but for 8 KiB.
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(dir, "filler")
	if err := os.WriteFile(filler, make([]byte, int64(st.Bavail)*st.Bsize-8<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := &mountLog{t: t}
	mp, unmount := fusetest.MountRW(t, name, logs)
	csv := filepath.Join(mp, "t.csv")
	before := viewLines(t, csv)
	var rows bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&rows, "%d,%g,%d,n%d\n", i, float64(i)*0.5, i%7, i%40)
	}
	err = fusetest.Append(csv, rows.Bytes())
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("appending 5000 rows with 8 KiB free: %v, want ENOSPC", err)
	}
	t.Logf("refused: %v (mount: %s)", err, logs.since(0))
	now, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(now, orig) {
		t.Errorf("after the failed commit the file is not as it was (%d bytes, was %d)", len(now), len(orig))
	}
	if _, err := os.Stat(name + "-journal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a journal is left after the failed commit: %v", err)
	}
	if got := viewLines(t, csv); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Errorf("t.csv has %d lines after the failed commit, want %d", len(got), len(before))
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := fusetest.Append(csv, rows.Bytes()); err != nil {
		t.Fatalf("the same append with room: %v\nmount log:\n%s", err, strings.Join(logs.lines, "\n"))
	}
	if n := len(viewLines(t, csv)); n != len(before)+5000 {
		t.Errorf("t.csv has %d lines after the append, want %d", n, len(before)+5000)
	}
	unmount()
	checkIndexes(t, name)
}
