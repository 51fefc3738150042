package arrowexport

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestConcurrentReads reads each view from several goroutines at once, as
// a FUSE server does, Finalize included.
func TestConcurrentReads(t *testing.T) {
	tbl, _ := testTable(9000)
	mk := []func() (View, error){
		func() (View, error) { return NewCSVView(tbl, Options{}) },
		func() (View, error) { return NewArrowView(tbl, Options{}) },
		func() (View, error) { return NewParquetView(tbl, Options{}) },
	}
	for _, m := range mk {
		ref, _ := m()
		want := checkView(t, ref)
		v, _ := m()
		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(g), 9))
				for range 40 {
					off := rng.Int64N(int64(len(want)))
					p := make([]byte, rng.IntN(50000)+1)
					n, _ := v.ReadAt(p, off)
					if !bytes.Equal(p[:n], want[off:min(off+int64(len(p)), int64(len(want)))]) {
						errs <- v.Ext()
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Fatalf("%s: concurrent read differs", e)
		}
	}
}
