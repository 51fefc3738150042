package fuse_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// viewRead is one whole read of a view while the table grew: the rows it
// showed (the x column, as ints) or why it could not be parsed.
type viewRead struct {
	view string
	xs   []int64
	err  error
}

// missingX is readXs's value of an empty x field of t.csv.
const missingX = -1 << 62

// readXs reads a view of write.h5's table whole and returns its x
// column: t.csv's first field (missingX when empty), t.arrow's x column,
// t/x.raw's int32s.
func readXs(mp, view string) ([]int64, error) {
	b, err := os.ReadFile(filepath.Join(mp, view))
	if err != nil {
		return nil, err
	}
	var xs []int64
	switch view {
	case "t.csv":
		lines := strings.Split(string(b), "\n")
		if lines[len(lines)-1] != "" {
			return nil, fmt.Errorf("%d bytes not ending in a newline", len(b))
		}
		for _, l := range lines[1 : len(lines)-1] {
			x := int64(missingX)
			if !strings.HasPrefix(l, ",") {
				if _, err := fmt.Sscanf(l, "%d,", &x); err != nil {
					return nil, fmt.Errorf("line %q: %v", l, err)
				}
			}
			xs = append(xs, x)
		}
	case "t.arrow":
		recs, err := readArrowRecovering(b)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			for _, v := range r.Column(0).(*array.Int32).Int32Values() {
				xs = append(xs, int64(v))
			}
			r.Release()
		}
	case "t/x.raw":
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("%d bytes, not whole int32s", len(b))
		}
		for i := 0; i < len(b); i += 4 {
			xs = append(xs, int64(int32(binary.LittleEndian.Uint32(b[i:]))))
		}
	}
	return xs, nil
}

// TestWriteConcurrentReaders appends batches to t.csv through a
// read-write kernel mount while two readers each scan t.csv, t.arrow and
// t/x.raw whole, over and over: every read is the table at some committed
// row count, its rows the table's first rows, never a torn mix. (Two
// readers opening a view a commit just remade used to run its sizing
// pass twice at once, and t.arrow tore.)
func TestWriteConcurrentReaders(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join(fusetest.OwnCorpus, "write.h5"))
	mp, unmount := fusetest.MountRW(t, name, nil)
	views := []string{"t.csv", "t.arrow", "t/x.raw"}

	const batches = 25
	counts := map[int]bool{40: true} // every row count a commit made
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	reads := map[string]viewRead{} // distinct reads, by view and content
	nreads := map[string]int{}
	for _, v := range views {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					xs, err := readXs(mp, v)
					key := fmt.Sprint(v, xs, err)
					mu.Lock()
					reads[key] = viewRead{v, xs, err}
					nreads[v]++
					mu.Unlock()
				}
			}()
		}
	}
	n := 40
	for b := range batches {
		k := 7 + 13*b%50
		if err := fusetest.Append(filepath.Join(mp, "t.csv"), writeRows(n-40, n-40+k)); err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("append %d: %v", b, err)
		}
		n += k
		mu.Lock()
		counts[n] = true
		mu.Unlock()
	}
	close(stop)
	wg.Wait()

	var stream []int64
	for s := range n - 40 {
		stream = append(stream, int64(s))
	}
	final := map[string][]int64{}
	for _, v := range views {
		xs, err := readXs(mp, v)
		if err != nil || len(xs) != n || !slices.Equal(xs[40:], stream) {
			t.Fatalf("%s after the appends: %d rows (%v), want the 40 first and the %d appended", v, len(xs), err, n-40)
		}
		final[v] = xs
	}
	seen := map[string]map[int]bool{}
	for _, r := range reads {
		if r.err != nil {
			t.Errorf("%s read during appends: %v", r.view, r.err)
			continue
		}
		if !counts[len(r.xs)] {
			t.Errorf("%s read during appends shows %d rows, no commit's count", r.view, len(r.xs))
		} else if !slices.Equal(r.xs, final[r.view][:len(r.xs)]) {
			t.Errorf("%s read during appends: %d rows, not the table's first ones", r.view, len(r.xs))
		}
		if seen[r.view] == nil {
			seen[r.view] = map[int]bool{}
		}
		seen[r.view][len(r.xs)] = true
	}
	for _, v := range views {
		t.Logf("%s: %d reads saw %d distinct row counts", v, nreads[v], len(seen[v]))
	}
	unmount()
	if got := checkStreamPrefix(t, name, map[int]bool{n: true}, n, true); got != n {
		t.Errorf("h5py reads NROWS %d, want %d", got, n)
	}
}

// readArrowIPC with arrow-go's panics on a torn file turned into errors.
func readArrowRecovering(b []byte) (recs []arrow.RecordBatch, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("not an Arrow IPC file (%d bytes): %v", len(b), r)
		}
	}()
	return readArrowIPC(b)
}
