package fuse_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
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

// energyRaw is energyRows for an energy.raw.
func energyRaw(b []byte, run int) (int, error) {
	if len(b)%8 != 0 {
		return 0, fmt.Errorf("%d bytes", len(b))
	}
	for i := 0; i < len(b)/8; i++ {
		if v := math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])); v != float64(i)*0.5+float64(run) {
			return 0, fmt.Errorf("row %d is %g; want %g (a torn state?)", i, v, float64(i)*0.5+float64(run))
		}
	}
	return len(b) / 8, nil
}

// maxRefused bounds the opens a reader may see refused with ESTALE in one
// run of the tests below: rarely (about one run in 50 of ~5,000 opens per
// reader) the kernel's retry of an ESTALE meets a torn state of the file
// again (README, files that change underneath). Any other failure of an
// open, or more refusals, fail the test.
const maxRefused = 2

// refusedOpen reports an open refused with ESTALE.
func refusedOpen(err error) bool {
	var pe *os.PathError
	return errors.As(err, &pe) && pe.Op == "open" && errors.Is(err, syscall.ESTALE)
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

// TestFileReplaced saves another run file over a mounted one as an
// editor does (a new file renamed over the old): the next open sees the
// new file, and a view opened before, first read after the change (so
// through the mount, not the page cache), reads the old file to the end.
func TestFileReplaced(t *testing.T) {
	file := filepath.Join(fusetest.MakeRuns(t, 1), "run0000.h5")
	mp := fusetest.MountFile(t, file, nil)
	energy := filepath.Join(mp, "events", "energy.csv")
	if n, err := energyRows(readFile(t, energy), 0); n != 10 || err != nil {
		t.Fatalf("before: %d rows, %v; want 10", n, err)
	}
	held, err := os.Open(filepath.Join(mp, "events", "energy.raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	time.Sleep(300 * time.Millisecond) // the mount's grace for new states

	appendRun(t, "replace", file, "3") // 13 rows of run 3
	if n, err := energyRows(readFile(t, energy), 3); n != 13 || err != nil {
		t.Errorf("after the save: %d rows, %v; want run 3's 13", n, err)
	}
	if n, err := energyRaw([]byte(readFile(t, filepath.Join(mp, "events", "energy.raw"))), 3); n != 13 || err != nil {
		t.Errorf("energy.raw opened after the save: %d rows, %v; want run 3's 13", n, err)
	}
	old, err := io.ReadAll(held)
	if err != nil {
		t.Fatalf("energy.raw opened before the save: %v", err)
	}
	if n, err := energyRaw(old, 0); n != 10 || err != nil {
		t.Errorf("energy.raw opened before the save: %d rows, %v; want run 0's 10", n, err)
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
	last, reads, refused := 0, 0, 0
	check := func() {
		b, err := os.ReadFile(energy)
		if refusedOpen(err) && refused < maxRefused {
			refused++
			return
		}
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
	t.Logf("%d consistent reads during %d SWMR appends, %d opens refused", reads, steps, refused)
	var buf bytes.Buffer
	buf.WriteString(readFile(t, filepath.Join(mp, "events.csv")))
	if n := strings.Count(buf.String(), "\n"); n != 10+run%7+steps*rows+1 {
		t.Errorf("events.csv: %d lines at the end", n)
	}
}

// TestFileChangesSWMRViews has a libhdf5 SWMR writer append to a mounted
// file without pausing between flushes: the writer puts new chunks and
// chunk index blocks past the old end of file, then updates the index in
// place, so a view opened on a tree made before a flush meets structures
// of the later state beyond the end that tree knew (see readWhileAppending).
func TestFileChangesSWMRViews(t *testing.T) {
	const run, steps, rows = 3, 300, 5
	file := filepath.Join(t.TempDir(), "swmr.h5")
	appendRun(t, "swmr-create", file, strconv.Itoa(run))
	readWhileAppending(t, file, run, 10+run%7+steps*rows, "swmr", file, strconv.Itoa(steps), strconv.Itoa(rows), "0")
}

// TestFileChangesPlainViews has h5py append to a mounted file (libhdf5
// without SWMR: a v1 B-tree chunk index, the file opened and closed at
// each step, freed space used again; a pause of 20 ms between steps, so
// that the readers meet many states) while it is read as in
// TestFileChangesSWMRViews.
func TestFileChangesPlainViews(t *testing.T) {
	const steps, rows = 100, 5
	file := filepath.Join(fusetest.MakeRuns(t, 1), "run0000.h5")
	readWhileAppending(t, file, 0, 10+steps*rows, "plain-steps", file, strconv.Itoa(steps), strconv.Itoa(rows))
}

// readWhileAppending mounts file, a run file of run run, and runs
// append_run.py with args, which appends to it, while readers read four
// views of the table (column and table CSV, raw, Arrow) over and over,
// each through a new open: every read is one state of the table (the
// prefix of the rows written, row i holding i*0.5+run), a reader's row
// counts never go back, and once the writer is done the next open shows
// the final rows. An open is refused (ESTALE) at most maxRefused times
// per reader, and the mount logs nothing: a table met between two
// columns' updates is the table of NROWS rows, a torn state is met again
// from a later one.
func readWhileAppending(t *testing.T, file string, run, final int, args ...string) {
	var logs syncBuffer
	mp := fusetest.MountFile(t, file, &logs)

	// each view's reader returns the rows it read, checked
	views := map[string]func([]byte) (int, error){
		"events/energy.csv": func(b []byte) (int, error) { return energyRows(string(b), run) },
		"events.csv": func(b []byte) (int, error) {
			var col strings.Builder
			col.WriteString("energy\n")
			lines := strings.SplitAfter(string(b), "\n")
			if lines[0] != "run,energy\n" {
				return 0, fmt.Errorf("header %q", lines[0])
			}
			for i, l := range lines[1:] {
				if l == "" {
					continue
				}
				r, e, ok := strings.Cut(l, ",")
				if !ok || r != strconv.Itoa(run) {
					return 0, fmt.Errorf("row %d is %q", i, l)
				}
				col.WriteString(e)
			}
			return energyRows(col.String(), run)
		},
		"events/energy.raw": func(b []byte) (int, error) { return energyRaw(b, run) },
		"events.arrow": func(b []byte) (int, error) {
			r, err := ipc.NewFileReader(bytes.NewReader(b), ipc.WithAllocator(memory.DefaultAllocator))
			if err != nil {
				return 0, err
			}
			defer r.Close()
			n := 0
			for k := range r.NumRecords() {
				rec, err := r.RecordBatch(k)
				if err != nil {
					return 0, err
				}
				if rec.NumCols() != 2 {
					return 0, fmt.Errorf("%d columns: %s (a torn state?)", rec.NumCols(), rec.Schema())
				}
				e := rec.Column(1).(*array.Float64)
				for i := range e.Len() {
					if e.IsNull(i) || e.Value(i) != float64(n)*0.5+float64(run) {
						return 0, fmt.Errorf("row %d is %v; want %g (a torn state?)", n, e.ValueStr(i), float64(n)*0.5+float64(run))
					}
					n++
				}
			}
			return n, nil
		},
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		appendRun(t, args...)
	}()
	type result struct {
		reads, last, errs, refused int
		seen                       map[int]bool
	}
	results := make(map[string]*result)
	var mu sync.Mutex
	for view, check := range views {
		res := &result{seen: map[int]bool{}}
		results[view] = res
		wg.Add(1)
		go func() {
			defer wg.Done()
			for running := true; running; {
				select {
				case <-done:
					running = false
				default:
				}
				b, err := os.ReadFile(filepath.Join(mp, view))
				var n int
				if err == nil {
					n, err = check(b)
				}
				mu.Lock()
				if refusedOpen(err) {
					if res.refused++; res.refused == maxRefused+1 {
						t.Errorf("%s, open %d: more than %d opens refused: %v", view, res.reads+res.refused, maxRefused, err)
					}
					mu.Unlock()
					continue
				}
				if err == nil && n < res.last {
					err = fmt.Errorf("%d rows after %d", n, res.last)
				}
				if err != nil {
					if res.errs++; res.errs <= 3 { // and counted below
						t.Errorf("%s, read %d: %v", view, res.reads, err)
					}
				}
				res.last = max(res.last, n)
				res.seen[n] = true
				res.reads++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	time.Sleep(300 * time.Millisecond) // the mount's grace for new states
	for view, check := range views {
		b, err := os.ReadFile(filepath.Join(mp, view))
		if err != nil {
			t.Fatal(err)
		}
		if n, err := check(b); n != final || err != nil {
			t.Errorf("%s once the writer is done: %d rows (%v); want %d", view, n, err, final)
		}
		res := results[view]
		t.Logf("%s: %d reads, %d failed, %d opens refused, %d distinct states", view, res.reads, res.errs, res.refused, len(res.seen))
	}
	for _, l := range strings.Split(logs.String(), "\n") {
		if l != "" {
			t.Errorf("mount log: %s", l)
		}
	}
	t.Logf("log of the mount:\n%s", logs.String())
}
