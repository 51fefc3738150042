package fuse_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// appendRun runs test/fuse/testdata/append_run.py.
func appendRun(t *testing.T, args ...string) {
	t.Helper()
	script := filepath.Join(fusetest.OwnCorpus, "..", "..", "test", "fuse", "testdata", "append_run.py")
	if out, err := exec.Command("/usr/bin/python3", append([]string{script}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("append_run.py %v: %v\n%s", args, err, out)
	}
}

// energyRows checks that an energy.csv of run file run is one state of
// the table (row i holds i*0.5+run) and returns its row count.
func energyRows(csv string, run int) (int, error) {
	lines := strings.Split(strings.TrimSuffix(csv, "\n"), "\n")
	if lines[0] != "energy" {
		return 0, fmt.Errorf("header %q", lines[0])
	}
	for i, l := range lines[1:] {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil || v != float64(i)*0.5+float64(run) {
			return 0, fmt.Errorf("row %d is %q; want %g (a torn state?)", i, l, float64(i)*0.5+float64(run))
		}
	}
	return len(lines) - 1, nil
}

// TestFileChanges appends to a mounted file with h5py (plain libhdf5
// writes): the next open of a view sees the new rows and the new dataset
// (whose name was looked up in vain before), sizes follow, and a view
// open across the change keeps its state.
func TestFileChanges(t *testing.T) {
	dir := fusetest.MakeRuns(t, 1)
	file := filepath.Join(dir, "run0000.h5")
	mp := fusetest.MountFile(t, file, nil)
	energy := filepath.Join(mp, "events", "energy.csv")
	if n, err := energyRows(readFile(t, energy), 0); n != 10 || err != nil {
		t.Fatalf("before: %d rows, %v; want 10", n, err)
	}
	held, err := os.Open(filepath.Join(mp, "events.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	before, _ := os.Stat(filepath.Join(mp, "events.parquet"))
	// a name looked up in vain must not stay hidden once the file has it
	if _, err := os.Stat(filepath.Join(mp, "extra.csv")); !os.IsNotExist(err) {
		t.Fatalf("extra.csv before the append: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // the mount's grace for new states

	appendRun(t, "plain", file, "5")
	if n, err := energyRows(readFile(t, energy), 0); n != 15 || err != nil {
		t.Errorf("after the append: %d rows, %v; want 15", n, err)
	}
	if got := readFile(t, filepath.Join(mp, "extra.csv")); got != "extra\n0\n1\n2\n3\n" {
		t.Errorf("new dataset extra.csv = %q", got)
	}
	whole := readFile(t, filepath.Join(mp, "events.csv"))
	if n := strings.Count(whole, "\n"); n != 16 {
		t.Errorf("events.csv after the append has %d lines; want 16", n)
	}
	after, err := os.Stat(filepath.Join(mp, "events.parquet"))
	if err != nil || before == nil || after.Size() == before.Size() {
		t.Errorf("events.parquet size %v -> %v (%v): unchanged", before, after, err)
	} else if b, err := os.ReadFile(filepath.Join(mp, "events.parquet")); err != nil || int64(len(b)) != after.Size() {
		t.Errorf("events.parquet: read %d bytes of %d: %v", len(b), after.Size(), err)
	}
	old, err := io.ReadAll(held)
	if n := strings.Count(string(old), "\n"); err != nil || n != 11 {
		t.Errorf("events.csv opened before the append reads %d lines (%v); want its 11", n, err)
	}
}

// TestFileChangesSWMR reads a mounted file over and over while a libhdf5
// SWMR writer appends to it: every read is one state of the table, the
// row counts never go back, and the last read has every row.
func TestFileChangesSWMR(t *testing.T) {
	const run, steps, rows = 7, 40, 3
	dir := t.TempDir()
	file := filepath.Join(dir, "swmr.h5")
	appendRun(t, "swmr-create", file, strconv.Itoa(run))
	mp := fusetest.MountFile(t, file, nil)
	energy := filepath.Join(mp, "events", "energy.csv")

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		appendRun(t, "swmr", file, strconv.Itoa(steps), strconv.Itoa(rows))
	}()
	last, reads := 0, 0
	check := func() {
		b, err := os.ReadFile(energy)
		if err != nil {
			t.Errorf("read %d: %v", reads, err)
			return
		}
		n, err := energyRows(string(b), run)
		if err != nil {
			t.Errorf("read %d: %v", reads, err)
		} else if n < last {
			t.Errorf("read %d: %d rows after %d", reads, n, last)
		}
		last = max(last, n)
		reads++
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			check()
			time.Sleep(5 * time.Millisecond)
		}
	}
	wg.Wait()
	time.Sleep(300 * time.Millisecond)
	check()
	if want := 10 + run%7 + steps*rows; last != want {
		t.Errorf("last read: %d rows; want %d", last, want)
	}
	t.Logf("%d consistent reads during %d SWMR appends", reads, steps)
	var buf bytes.Buffer
	buf.WriteString(readFile(t, filepath.Join(mp, "events.csv")))
	if n := strings.Count(buf.String(), "\n"); n != 10+run%7+steps*rows+1 {
		t.Errorf("events.csv: %d lines at the end", n)
	}
}
