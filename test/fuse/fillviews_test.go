package fuse_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// wideRows and wideWritten are the rows of table wide of the hostile
// huge.h5, and how many of them were written (x = i, y = i/4; the rest are
// missing).
const (
	wideRows    = 1 << 30
	wideWritten = 1000
)

// checkWide opens the views of the hostile huge.h5's table wide, 2^30 rows
// of which the first 1000 were written, through the mount mp: each opens
// with its exact size without a pass over the never-written rows (the
// time is logged, not asserted), and its first and last bytes read right.
func checkWide(t *testing.T, mp string) {
	for _, c := range []struct{ view, null string }{
		{"wide.csv", ",\n"}, {"wide/x.csv", "\"\"\n"}, {"wide/y.csv", "\"\"\n"},
	} {
		f, size := openTimed(t, filepath.Join(mp, c.view))
		if f == nil {
			continue
		}
		head := make([]byte, 64<<10)
		if _, err := io.ReadFull(f, head); err != nil {
			t.Errorf("%s: %v", c.view, err)
		}
		// the header and the rows written, then missing rows to the end
		p := 0
		for range wideWritten + 1 {
			p += bytes.IndexByte(head[p:], '\n') + 1
		}
		if want := int64(p) + (wideRows-wideWritten)*int64(len(c.null)); size != want {
			t.Errorf("%s: size %d once opened, want %d", c.view, size, want)
		}
		if rest := string(head[p : len(head)-len(head[p:])%len(c.null)]); rest != strings.Repeat(c.null, len(rest)/len(c.null)) {
			t.Errorf("%s: after the written rows: %q", c.view, rest[:min(len(rest), 40)])
		}
		tail := make([]byte, 3*len(c.null))
		if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil || string(tail) != strings.Repeat(c.null, 3) {
			t.Errorf("%s: ends with %q (%v)", c.view, tail, err)
		}
		f.Close()
	}
	if f, _ := openTimed(t, filepath.Join(mp, "wide.arrow")); f != nil {
		defer f.Close()
		r, err := ipc.NewFileReader(f, ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			t.Fatalf("wide.arrow: %v", err)
		}
		defer r.Close()
		if r.NumRecords() != wideRows>>20 {
			t.Errorf("wide.arrow: %d record batches, want %d", r.NumRecords(), wideRows>>20)
		}
		checkWideBatch(t, "wide.arrow", r, 0)
		checkWideBatch(t, "wide.arrow", r, r.NumRecords()-1)
	}
}

// openTimed opens p, logs how long that took, and returns it with its
// size once opened.
func openTimed(t *testing.T, p string) (*os.File, int64) {
	start := time.Now()
	f, err := os.Open(p)
	if err != nil {
		t.Error(err)
		return nil, 0
	}
	st, err := f.Stat()
	if err != nil {
		t.Error(err)
		f.Close()
		return nil, 0
	}
	t.Logf("%s: opened in %v, %d bytes", filepath.Base(p), time.Since(start), st.Size())
	return f, st.Size()
}

// checkWideBatch checks record batch i of the Arrow view of table wide:
// rows written hold x = i and y = i/4 (missing where that is y's fill,
// 0.5), the others are missing.
func checkWideBatch(t *testing.T, view string, r *ipc.FileReader, i int) {
	rec, err := r.RecordBatch(i)
	if err != nil {
		t.Errorf("%s: batch %d: %v", view, i, err)
		return
	}
	x, y := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Float64)
	for k := range int(rec.NumRows()) {
		row := int64(i)<<20 + int64(k)
		got := fmt.Sprint(x.IsNull(k), x.Value(k), y.IsNull(k), y.Value(k))
		want := fmt.Sprint(true, x.Value(k), true, y.Value(k))
		if row < wideWritten && row != 2 {
			want = fmt.Sprint(false, row, false, float64(row)/4)
		} else if row == 2 { // y is its fill value there: missing
			want = fmt.Sprint(false, 2, true, y.Value(k))
		}
		if got != want {
			t.Errorf("%s: row %d: %s, want %s", view, row, got, want)
			return
		}
	}
}
