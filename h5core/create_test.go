package h5core_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
	"github.com/h5fs/h5fs/internal/h5wasmtest"
)

// createCase is one dataset TestCreateDataset makes and fills with
// values 0, 1, 2, ... (as the type holds them).
type createCase struct {
	parent, name string
	float        bool
	size         int
	dims, max    []uint64
	chunk        []uint64
	filters      []h5core.Filter
	fill         []byte
}

func (c createCase) path() string { return strings.TrimSuffix(c.parent, "/") + "/" + c.name }

// TestCreateDataset makes contiguous and chunked (filtered, growable)
// datasets in every kind of group h5py writes — symbol-table groups
// (earliest), compact and dense ones, with and without creation order
// (latest), enough of them to split symbol nodes and to need
// continuation chunks — and
// checks their values through libhdf5 and h5core's reader, and that the
// datasets already there are intact.
func TestCreateDataset(t *testing.T) {
	deflate := []h5core.Filter{{ID: h5core.FilterShuffle}, {ID: h5core.FilterDeflate, ClientData: []uint32{4}}}
	for _, file := range []string{"earliest", "latest"} {
		t.Run(file, func(t *testing.T) {
			p := copyFixture(t, file)
			rw, err := h5core.OpenRW(p)
			if err != nil {
				t.Fatal(err)
			}
			defer rw.Close()
			cases := []createCase{ // "/" is dense in the latest format
				{parent: "/", name: "newcontig", size: 4, dims: []uint64{3, 5}},
				{parent: "/", name: "chunked", float: true, size: 8, dims: []uint64{10, 7}, max: []uint64{h5core.Unlimited, 7}, chunk: []uint64{4, 3}, filters: deflate},
				{parent: "/t", name: "filled", size: 2, dims: []uint64{9}, chunk: []uint64{4}, fill: []byte{0xff, 0x7f}},
			}
			for i := range 12 {
				cases = append(cases, createCase{parent: "/links", name: fmt.Sprintf("n%02d", i), size: 8, dims: []uint64{uint64(i + 1)}, chunk: []uint64{2}})
			}
			for _, name := range []string{"d05b", "a", "zz", "d10x"} { // dense with creation order (latest)
				cases = append(cases, createCase{parent: "/dense_links", name: name, size: 2, dims: []uint64{3}})
			}
			tx, err := rw.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				typ, err := h5core.NumberType(c.float, true, c.size)
				if err != nil {
					t.Fatal(err)
				}
				err = tx.CreateDataset(c.parent, c.name, h5core.DatasetSpec{Type: typ, Dims: c.dims, MaxDims: c.max, Chunk: c.chunk, Filters: c.filters, Fill: c.fill})
				if err != nil {
					t.Fatalf("%s: %v", c.path(), err)
				}
				n := 1
				for _, d := range c.dims {
					n *= int(d)
				}
				if c.fill != nil {
					n-- // the last element keeps the fill value
				}
				vals := make([]float64, n)
				for i := range vals {
					vals[i] = float64(i)
				}
				if err := tx.WriteAt(c.path(), le(c.size, c.float, vals...), 0); err != nil {
					t.Fatalf("%s: %v", c.path(), err)
				}
			}
			if err := tx.CreateDataset("/links", "n03", h5core.DatasetSpec{Type: cases[0].typ(t), Dims: []uint64{1}}); !errors.Is(err, h5core.ErrExists) {
				t.Errorf("a second /links/n03: %v, want ErrExists", err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				o, err := rw.File().Open(c.path())
				if err != nil {
					t.Fatal(err)
				}
				if _, err := o.Dataset(); err != nil {
					t.Fatalf("h5core reading back %s: %v", c.path(), err)
				}
			}
			rw.Close()
			checkRootCache(t, p)
			d, err := crashtest.Digest(p)
			if err != nil {
				t.Fatal(err)
			}
			got := d[p]
			if got.Error != "" {
				t.Fatalf("libhdf5: %s", got.Error)
			}
			for _, c := range cases {
				dd, ok := got.Datasets[c.path()]
				if !ok {
					t.Errorf("libhdf5 does not see %s", c.path())
					continue
				}
				if fmt.Sprint(dd.Shape) != fmt.Sprint(c.dims) {
					t.Errorf("%s: shape %v, want %v", c.path(), dd.Shape, c.dims)
				}
				for i, v := range dd.Values {
					want := float64(i)
					if c.fill != nil && i == len(dd.Values)-1 {
						want = 0x7fff
					}
					if v != want {
						t.Errorf("%s[%d] = %v, want %v", c.path(), i, v, want)
						break
					}
				}
			}
			for _, old := range []string{"/t/a", "/links/x0", "/links/x2", "/contig", "/dense_links/d05"} {
				if _, ok := got.Datasets[old]; !ok {
					t.Errorf("%s lost", old)
				}
			}
			if err := crashtest.H5dump(p); err != nil {
				t.Error(err)
			}
			if err := crashtest.H5ls(p); err != nil {
				t.Error(err)
			}
			w := h5wasmtest.Dump(t, p) // libhdf5 2.0
			for _, c := range cases {
				if w.Objects[c.path()] == nil {
					t.Errorf("h5wasm does not see %s", c.path())
				}
			}
		})
	}
}

// checkRootCache fails unless the root entry a version 0 or 1 superblock
// caches names the symbol table the root group's header names (libhdf5
// readers repair a stale copy; other readers may trust it).
func checkRootCache(t *testing.T, p string) {
	t.Helper()
	f, err := h5core.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	msg, cache, cached, err := h5core.RootSymbolCache(f)
	if err != nil {
		t.Fatal(err)
	}
	if cached && msg != cache {
		t.Errorf("the superblock caches the root symbol table at %#x, its header names %#x", cache, msg)
	}
}

func (c createCase) typ(t *testing.T) *h5core.Datatype {
	typ, err := h5core.NumberType(c.float, true, c.size)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

// TestCreateDatasetRefused: a bad spec and a name taken
// are errors before anything is written; the file stays as it was.
func TestCreateDatasetRefused(t *testing.T) {
	p := copyFixture(t, "latest")
	rw, err := h5core.OpenRW(p)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	tx, _ := rw.Begin()
	typ, _ := h5core.NumberType(false, true, 4)
	for name, c := range map[string]struct {
		parent, name string
		spec         h5core.DatasetSpec
		want         error
	}{
		"taken":   {"/t", "a", h5core.DatasetSpec{Type: typ, Dims: []uint64{1}}, h5core.ErrExists},
		"chunk":   {"/", "x", h5core.DatasetSpec{Type: typ, Dims: []uint64{4}, MaxDims: []uint64{h5core.Unlimited}}, nil},
		"rank":    {"/", "x", h5core.DatasetSpec{Type: typ, Dims: []uint64{4}, Chunk: []uint64{1, 1}}, nil},
		"no type": {"/", "x", h5core.DatasetSpec{Dims: []uint64{4}}, nil},
		"slash":   {"/", "a/b", h5core.DatasetSpec{Type: typ, Dims: []uint64{1}}, nil},
	} {
		err := tx.CreateDataset(c.parent, c.name, c.spec)
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: %v, want an error (%v)", name, err, c.want)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	out, err := exec.Command("/usr/bin/python3", "-c", "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(sorted(f.keys()), f['t/a'][:3])", p).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "0 10 20]") {
		t.Errorf("h5py after refused creations: %v\n%s", err, out)
	}
}

// TestCreateSparseDataset makes structured-chunk sparse datasets (fixed
// array, extensible array and v2 B-tree indexes, with and without
// section filters), defines elements, and reads them back through
// h5core; libhdf5 still opens the file and lists them.
func TestCreateSparseDataset(t *testing.T) {
	deflate := []h5core.Filter{{ID: h5core.FilterDeflate, ClientData: []uint32{6}}}
	for _, file := range []string{"earliest", "latest"} {
		p := copyFixture(t, file)
		rw, err := h5core.OpenRW(p)
		if err != nil {
			t.Fatal(err)
		}
		tx, _ := rw.Begin()
		typ, _ := h5core.NumberType(true, true, 8)
		specs := map[string]h5core.DatasetSpec{
			"sp_fa":  {Dims: []uint64{10, 10}},
			"sp_ea":  {Dims: []uint64{10, 10}, MaxDims: []uint64{h5core.Unlimited, 10}, SectionFilters: [][]h5core.Filter{deflate, deflate}},
			"sp_bt2": {Dims: []uint64{10, 10}, MaxDims: []uint64{h5core.Unlimited, h5core.Unlimited}, SectionFilters: [][]h5core.Filter{nil, {{ID: h5core.FilterShuffle}, deflate[0]}}},
		}
		for name, s := range specs {
			s.Type, s.Chunk, s.Sparse = typ, []uint64{4, 4}, true
			if err := tx.CreateDataset("/t", name, s); err != nil {
				t.Fatal(err)
			}
			// chunk (0,0): positions 0 and 5; chunk (2,1): position 1 (element (8,5))
			if err := tx.WriteSparseChunk("/t/"+name, []uint64{0, 0}, []uint64{0, 5}, le(8, true, 1.5, 2.5)); err != nil {
				t.Fatal(err)
			}
			if err := tx.WriteSparseChunk("/t/"+name, []uint64{2, 1}, []uint64{1}, le(8, true, 3.5)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		for name := range specs {
			o, err := rw.File().Open("/t/" + name)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := o.Dataset()
			if err != nil {
				t.Fatal(err)
			}
			if !ds.IsSparse() {
				t.Fatalf("%s: not sparse", name)
			}
			got := map[uint64]float64{}
			chunks, err := ds.SparseChunks()
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range chunks {
				sc, err := ds.ReadSparseChunk(c, true)
				if err != nil {
					t.Fatal(err)
				}
				err = sc.Runs(func(start []uint64, n uint64, vals []byte) error {
					for k := range n {
						got[start[0]*10+start[1]+k] = math.Float64frombits(binary.LittleEndian.Uint64(vals[8*k:]))
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if want := map[uint64]float64{0: 1.5, 11: 2.5, 85: 3.5}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %s: elements %v, want %v", file, name, got, want)
			}
		}
		rw.Close()
		out, err := exec.Command("/usr/bin/python3", "-c", "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(sorted(f['t'].keys()), f['t/a'][:3])", p).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "'sp_bt2', 'sp_ea', 'sp_fa'") || !strings.Contains(string(out), "0 10 20]") {
			t.Errorf("%s: h5py: %v\n%s", file, err, out)
		}
	}
}

// TestCreateDatasetCrash replays every prefix of the writes and fsyncs
// of creating and filling a dataset in each kind of group (symbol
// table, compact, dense with creation order; and the root group of an
// earliest-format file, whose symbol table addresses the superblock
// caches), with the disk reordering
// the writes between two fsyncs too: after recovery libhdf5 sees exactly
// the old or the new file; before recovery it opens the file and sees
// the new dataset either not at all or whole.
func TestCreateDatasetCrash(t *testing.T) {
	for _, c := range []struct{ file, parent string }{
		{"earliest", "/links"}, {"latest", "/links"}, {"latest", "/dense_links"},
		{"earliest", "/"}, // the superblock caches the root's symbol table
	} {
		t.Run(c.file+c.parent, func(t *testing.T) {
			n, err := replayCreate(t, c.file, c.parent, &crashtest.Recorder{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states", n)
		})
	}
}

// TestCreateDatasetCrashCatchesReorder drops the data file's third fsync
// from the record: the one after a group's heap header (the local heap's
// new data segment, the fractal heap's huge objects) and before the
// pointer to the index naming the new link. Only a reordered state
// (the pointer kept, the heap header lost) shows it, and the harness
// must find it: libhdf5 cannot offset into the old heap (symbol table)
// or crashes (dense group).
func TestCreateDatasetCrashCatchesReorder(t *testing.T) {
	for _, c := range []struct{ file, parent string }{
		{"earliest", "/links"}, {"latest", "/dense_links"},
	} {
		t.Run(c.file+c.parent, func(t *testing.T) {
			_, err := replayCreate(t, c.file, c.parent, &crashtest.Recorder{DropSync: crashtest.DropNthSync(".h5", 3)})
			if err == nil {
				t.Fatal("a link inserted without the fsync after its heap header passed the crash replay")
			}
			if !strings.Contains(err.Error(), "alone lost") {
				t.Errorf("caught, but not by a reordered state: %v", err)
			}
			t.Logf("caught: %v", err)
		})
	}
}

// replayCreate records creating and filling the dataset new in the group
// parent of a copy of the fixture, replays every crash state and returns
// their number and the first that breaks the promise of
// TestCreateDatasetCrash; setup failures are fatal.
func replayCreate(t *testing.T, fixture, parent string, rec *crashtest.Recorder) (int, error) {
	t.Helper()
	p := copyFixture(t, fixture)
	path := strings.TrimSuffix(parent, "/") + "/new"
	n, cerr := crashtest.CheckTx(t, p, rec, func(rw *h5core.RW) error {
		tx, err := rw.Begin()
		if err != nil {
			return err
		}
		typ, _ := h5core.NumberType(false, true, 8)
		if err := tx.CreateDataset(parent, "new", h5core.DatasetSpec{Type: typ, Dims: []uint64{5}, Chunk: []uint64{2}}); err != nil {
			return err
		}
		if err := tx.WriteAt(path, le(8, false, 7, 8, 9, 10, 11), 0); err != nil {
			return err
		}
		return tx.Commit()
	}, func(before, _, newD crashtest.FileDigest) error {
		if d, ok := before.Datasets[path]; ok && !reflect.DeepEqual(d, newD.Datasets[path]) {
			return fmt.Errorf("before recovery %s holds %v", path, d.Values)
		}
		return nil
	})
	cur, err := crashtest.Digest(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cur[p].Datasets[path]; fmt.Sprint(d.Values) != "[7 8 9 10 11]" {
		t.Fatalf("libhdf5 after the commit: %v", d)
	}
	return n, cerr
}
