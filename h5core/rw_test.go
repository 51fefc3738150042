package h5core_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
	"github.com/h5fs/h5fs/internal/h5wasmtest"
)

// TestWriteInPlace overwrites elements inside the extent of every layout
// and index kind, with WriteAt and WriteChunk, and has libhdf5 read them.
func TestWriteInPlace(t *testing.T) {
	type write struct {
		path  string
		chunk []uint64 // WriteChunk at this offset when set, else WriteAt
		cw    int      // the chunk's width (columns)
		off   int      // element offset
		size  int
		vals  []float64
	}
	cases := map[string][]write{
		"earliest": {
			{path: "/t/a", off: 3, size: 8, vals: []float64{-1, -2, -3, -4, -5}},
			{path: "/t/b", off: 9, size: 8, vals: []float64{0.5}},
			{path: "/contig", off: 2, size: 4, vals: []float64{-7, -8}},
			{path: "/t/c", chunk: []uint64{4, 0}, cw: 3, size: 4, vals: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		},
		"latest": {
			{path: "/t/a", off: 3, size: 8, vals: []float64{-1, -2, -3, -4, -5}},
			{path: "/single", off: 1, size: 4, vals: []float64{-1}},
			{path: "/single_gzip", off: 7, size: 4, vals: []float64{-9}},
			{path: "/single_empty", off: 0, size: 4, vals: []float64{5, 6, 7}},
			{path: "/implicit", off: 4, size: 4, vals: []float64{-4, -5, -6}},
			{path: "/contig", off: 2, size: 4, vals: []float64{-7, -8}},
			{path: "/bt2_gzip", chunk: []uint64{2, 2}, cw: 2, size: 4, vals: []float64{1, 2, 3, 4}},
			{path: "/fixed_empty", off: 9, size: 4, vals: []float64{99}},
		},
		"earliest_ub": { // behind a user block
			{path: "/t/a", off: 3, size: 8, vals: []float64{-1, -2, -3, -4, -5}},
			{path: "/t/b", off: 9, size: 8, vals: []float64{0.5}},
			{path: "/contig", off: 2, size: 4, vals: []float64{-7, -8}},
		},
		"latest_ub": {
			{path: "/t/a", off: 3, size: 8, vals: []float64{-1, -2, -3, -4, -5}},
			{path: "/t/b", off: 9, size: 8, vals: []float64{0.5}},
			{path: "/fixed", off: 1, size: 4, vals: []float64{-3}},
		},
	}
	for file, writes := range cases {
		t.Run(file, func(t *testing.T) {
			p := copyFixture(t, file)
			d, err := crashtest.Digest(p)
			if err != nil {
				t.Fatal(err)
			}
			want := d[p]
			rw, err := h5core.OpenRW(p)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := rw.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range writes {
				ds := want.Datasets[w.path]
				if w.chunk != nil {
					err = tx.WriteChunk(w.path, w.chunk, le(w.size, false, w.vals...))
					// the chunk's elements inside the extent, row-major
					width := int(ds.Shape[1])
					cw := w.cw
					for r := range len(w.vals) / cw {
						for c := range cw {
							row, col := int(w.chunk[0])+r, int(w.chunk[1])+c
							if row < int(ds.Shape[0]) && col < width {
								ds.Values[row*width+col] = w.vals[r*cw+c]
							}
						}
					}
				} else {
					err = tx.WriteAt(w.path, le(w.size, w.path == "/t/b", w.vals...), int64(w.off*w.size))
					for i, v := range w.vals {
						ds.Values[w.off+i] = v
					}
				}
				if err != nil {
					t.Fatalf("%s: %v", w.path, err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := crashtest.Digest(p)
			if err != nil {
				t.Fatal(err)
			}
			compareDigest(t, got[p], want)
			checkUserBlock(t, file, p)
			if err := crashtest.H5dump(p); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestRollback: a rolled-back transaction leaves the file byte for byte
// as it was, whether or not its overwrites had already reached the file.
func TestRollback(t *testing.T) {
	for _, barrier := range []bool{false, true} {
		p := copyFixture(t, "latest")
		orig, _ := os.ReadFile(p)
		rw, err := h5core.OpenRW(p)
		if err != nil {
			t.Fatal(err)
		}
		tx, _ := rw.Begin()
		if err := tx.SetExtent("/t/a", []uint64{20}); err != nil {
			t.Fatal(err)
		}
		if err := tx.WriteAt("/t/a", le(8, false, 1, 2, 3), 80); err != nil {
			t.Fatal(err)
		}
		if err := tx.SetAttribute("/t", "NROWS", le(8, false, 13)); err != nil {
			t.Fatal(err)
		}
		if barrier {
			if err := h5core.ApplyUncommitted(tx); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(h5core.JournalPath(p)); err != nil {
				t.Errorf("no journal after overwriting bytes: %v", err)
			}
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if err := rw.Close(); err != nil {
			t.Fatal(err)
		}
		now, _ := os.ReadFile(p)
		if !bytes.Equal(now, orig) {
			t.Errorf("barrier %v: file changed by a rolled-back transaction (%d bytes, was %d)", barrier, len(now), len(orig))
		}
		if _, err := os.Stat(h5core.JournalPath(p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("barrier %v: journal left after rollback", barrier)
		}
	}
}

// faultFS fails every WriteAt to the HDF5 file from the n-th on with
// err, as a full or failing disk does.
type faultFS struct {
	h5core.FS
	n   int
	err error
}

type faultFile struct {
	h5core.FSFile
	fs *faultFS
}

func (f *faultFS) OpenFile(name string, flag int, perm fs.FileMode) (h5core.FSFile, error) {
	fh, err := f.FS.OpenFile(name, flag, perm)
	if err != nil || strings.HasSuffix(name, "-journal") {
		return fh, err
	}
	return faultFile{fh, f}, nil
}

func (f faultFile) WriteAt(p []byte, off int64) (int, error) {
	if f.fs.n--; f.fs.n < 0 {
		return 0, f.fs.err
	}
	return f.FSFile.WriteAt(p, off)
}

// TestFaults: ENOSPC or EIO at any write of an append is an error from
// the transaction, and after rollback (or, when rolling back fails too,
// after the recovery at the next open) the file is byte for byte as it
// was.
func TestFaults(t *testing.T) {
	p0 := copyFixture(t, "earliest")
	orig, _ := os.ReadFile(p0)
	for _, fault := range []error{syscall.ENOSPC, syscall.EIO} {
		for n := 0; ; n++ {
			p := copyFixture(t, "earliest")
			ffs := &faultFS{FS: h5core.OSFS, n: n, err: fault}
			rw, err := h5core.OpenRWWith(p, h5core.RWOptions{FS: ffs})
			if err != nil {
				t.Fatal(err)
			}
			err = appendTx(rw)
			if err == nil {
				if n < 3 {
					t.Fatalf("append with a fault at write %d succeeded", n)
				}
				rw.Close()
				break // past the last write
			}
			if !errors.Is(err, fault) {
				t.Errorf("fault at write %d: error %v does not wrap %v", n, err, fault)
			}
			rw.Close() // rolls back; may fail while writes keep failing
			if _, err := h5core.RecoverFS(h5core.OSFS, p, nil); err != nil {
				t.Fatal(err)
			}
			if now, _ := os.ReadFile(p); !bytes.Equal(now, orig) {
				t.Fatalf("%v at write %d: file differs after recovery", fault, n)
			}
		}
	}
}

// TestLocking: libhdf5 cannot open the file for writing while it is open
// here, and OpenRW refuses a file libhdf5 has open or whose superblock
// says a writer has it open.
func TestLocking(t *testing.T) {
	p := copyFixture(t, "latest")
	rw, err := h5core.OpenRW(p)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(crashtest.Python, "-c", "import h5py,sys; h5py.File(sys.argv[1], 'r+')", p).CombinedOutput()
	if err == nil {
		t.Error("h5py opened the file for writing while h5core had it open")
	} else if !strings.Contains(string(out), "lock") {
		t.Errorf("h5py failed for another reason than the lock: %s", out)
	}
	if _, err := h5core.OpenRW(p); !errors.Is(err, h5core.ErrLocked) {
		t.Errorf("a second OpenRW: %v, want ErrLocked", err)
	}
	rw.Close()

	// libhdf5 holds the file open for writing.
	cmd := exec.Command(crashtest.Python, "-c", "import h5py,sys; f=h5py.File(sys.argv[1], 'r+'); print('open', flush=True); sys.stdin.read()", p)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := stdout.Read(buf); err != nil {
		t.Fatal(err)
	}
	if _, err := h5core.OpenRW(p); !errors.Is(err, h5core.ErrLocked) {
		t.Errorf("OpenRW while h5py writes: %v, want ErrLocked", err)
	}
	// Without libhdf5's lock the superblock's write-access flag refuses it.
	t.Setenv("HDF5_USE_FILE_LOCKING", "FALSE")
	if _, err := h5core.OpenRW(p); !errors.Is(err, h5core.ErrLocked) || !strings.Contains(err.Error(), "write-access flag") {
		t.Errorf("OpenRW with the superblock's write flag set: %v", err)
	}
	stdin.Close()
	cmd.Wait()
	rw, err = h5core.OpenRW(p)
	if err != nil {
		t.Fatalf("after h5py closed the file: %v", err)
	}
	rw.Close()
}

// TestRecoverAtOpen leaves a hot journal behind (a crash just before the
// commit point) and checks that opening the file, for writing (OpenRW) or
// for reading (Open, as every h5fs command and the mount do), rolls it
// back.
func TestRecoverAtOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(string) (io.Closer, error)
	}{
		{"OpenRW", func(p string) (io.Closer, error) { return h5core.OpenRW(p) }},
		{"Open", func(p string) (io.Closer, error) { return h5core.Open(p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := copyFixture(t, "earliest")
			orig, _ := os.ReadFile(p)
			rec := &crashtest.Recorder{}
			rw, err := h5core.OpenRWWith(p, h5core.RWOptions{FS: rec})
			if err != nil {
				t.Fatal(err)
			}
			tx, _ := rw.Begin()
			if err := tx.SetAttribute("/t", "NROWS", le(8, false, 3)); err != nil {
				t.Fatal(err)
			}
			if err := h5core.ApplyUncommitted(tx); err != nil {
				t.Fatal(err)
			}
			// crash: the process dies with the journal hot (no Close)
			if _, err := os.Stat(h5core.JournalPath(p)); err != nil {
				t.Fatal("no journal after the overwrites")
			}
			if now, _ := os.ReadFile(p); bytes.Equal(now, orig) {
				t.Fatal("the overwrites changed nothing")
			}
			f, err := tc.open(p)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			if now, _ := os.ReadFile(p); !bytes.Equal(now, orig) {
				t.Errorf("%s did not roll the hot journal back", tc.name)
			}
			if _, err := os.Stat(h5core.JournalPath(p)); err == nil {
				t.Errorf("%s left the journal", tc.name)
			}
		})
	}
}

// TestSetAttributeShape shrinks a list attribute, compact (/t) and, in
// the latest format, dense (/attrs).
func TestSetAttributeShape(t *testing.T) {
	for _, file := range []string{"earliest", "latest"} {
		p := copyFixture(t, file)
		rw, err := h5core.OpenRW(p)
		if err != nil {
			t.Fatal(err)
		}
		tx, _ := rw.Begin()
		for _, obj := range []string{"/t", "/attrs"} {
			if err := tx.SetAttributeShape(obj, "list", []uint64{3}, le(8, false, 7, 8, 9)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.SetAttributeShape("/t", "list", []uint64{6}, le(8, false, 1, 2, 3, 4, 5, 6)); err == nil {
			t.Error("growing an attribute past its message succeeded")
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		rw.Close()
		d, err := crashtest.Digest(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range []string{"/t", "/attrs"} {
			if got := fmt.Sprint(d[p].Attrs[obj]["list"]); got != "[7 8 9]" {
				t.Errorf("%s %s: list is %s, want [7 8 9] (%s)", file, obj, got, d[p].Error)
			}
		}
		if err := crashtest.H5dump(p); err != nil {
			t.Error(err)
		}
	}
}

// TestDeleteLink removes links from a symbol-table group (earliest), a
// compact group and a dense group with a creation order index (latest).
func TestDeleteLink(t *testing.T) {
	for _, file := range []string{"earliest", "latest"} {
		p := copyFixture(t, file)
		rw, err := h5core.OpenRW(p)
		if err != nil {
			t.Fatal(err)
		}
		tx, _ := rw.Begin()
		gone := []string{"/links/x1", "/dense_links/d07", "/dense_links/d00", "/dense_links/d19"}
		for _, l := range gone {
			i := strings.LastIndex(l, "/")
			if err := tx.DeleteLink(l[:i], l[i+1:]); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.DeleteLink("/links", "nope"); !errors.Is(err, h5core.ErrNotFound) {
			t.Errorf("deleting a missing link: %v", err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		rw.Close()
		d, err := crashtest.Digest(p)
		if err != nil {
			t.Fatal(err)
		}
		if d[p].Error != "" {
			t.Fatalf("%s: libhdf5: %s", file, d[p].Error)
		}
		for _, l := range gone {
			if _, ok := d[p].Datasets[l]; ok {
				t.Errorf("%s: %s still there", file, l)
			}
		}
		for _, l := range []string{"/links/x0", "/links/x2", "/dense_links/d01", "/dense_links/d18", "/t/a"} {
			if _, ok := d[p].Datasets[l]; !ok {
				t.Errorf("%s: %s lost", file, l)
			}
		}
		if err := crashtest.H5dump(p); err != nil {
			t.Error(err)
		}
		w := h5wasmtest.Dump(t, p)
		for _, l := range gone {
			if w.Objects[l] != nil {
				t.Errorf("h5wasm: %s: %s still there", file, l)
			}
		}
		if w.Objects["/dense_links/d01"] == nil {
			t.Errorf("h5wasm: %s: /dense_links/d01 lost", file)
		}
	}
}

// TestRecoverLocked: Recover leaves alone the journal of a transaction
// that is still running (its writer holds the lock); once that commits
// there is nothing to recover. (TestRecoverAtOpen rolls back the journal
// of a writer that died.)
func TestRecoverLocked(t *testing.T) {
	p := copyFixture(t, "earliest")
	orig, _ := os.ReadFile(p)
	rw, err := h5core.OpenRW(p)
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := rw.Begin()
	if err := tx.SetAttribute("/t", "NROWS", le(8, false, 3)); err != nil {
		t.Fatal(err)
	}
	if err := h5core.ApplyUncommitted(tx); err != nil {
		t.Fatal(err)
	}
	if ok, err := h5core.Recover(p); ok || !errors.Is(err, h5core.ErrLocked) {
		t.Errorf("Recover during a live transaction: %v, %v; want ErrLocked", ok, err)
	}
	if now, _ := os.ReadFile(p); bytes.Equal(now, orig) {
		t.Fatal("Recover rolled back a live transaction")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	if ok, err := h5core.Recover(p); ok || err != nil {
		t.Errorf("Recover with no journal: %v, %v", ok, err)
	}
}

// TestOpenRWBadBase: a superblock whose end-of-file address lies before
// its base address (the stored EOF is absolute: relative EOF plus base)
// is refused for writing with an error naming both, and the file is left
// as it was.
func TestOpenRWBadBase(t *testing.T) {
	p := copyFixture(t, "earliest_ub")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// superblock v0 at 512: 24 bytes of versions and sizes, then the base
	// address (8 bytes)
	binary.LittleEndian.PutUint64(b[512+24:], 1<<40)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rw, err := h5core.OpenRW(p)
	if err == nil {
		rw.Close()
		t.Fatal("OpenRW accepted a base address past the end-of-file address")
	}
	if !strings.Contains(err.Error(), "base address 0x10000000000") {
		t.Errorf("error %q does not name the base address", err)
	}
	if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
		t.Error("the refused file changed")
	}
}
