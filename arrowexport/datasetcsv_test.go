package arrowexport

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// dscsvDatasets are the datasets of testdata/dscsv.h5 (written by
// testdata/gen_dscsv.py with h5py) that have a CSV form, with the exact
// bytes expected of the small ones ("" for those only pandas checks).
var dscsvDatasets = []struct{ name, want string }{
	{"scalar_f8", "scalar_f8\n2.5\n"},
	{"scalar_str", "scalar_str\n\"a,b\"\n"},
	{"scalar_cmp", "n,x\n7,-0.25\n"},
	{"arr_scalar", "arr_scalar\n1\n-2\n3\n"},
	{"i8", "i8\n-9223372036854775808\n-1\n0\n1\n9223372036854775807\n"},
	{"u8", "u8\n0\n18446744073709551615\n12345\n"},
	{"i1", ""},
	{"be_i4", ""},
	{"f2", "f2\n0.5\n-65504\nnan\n6.0021877e-05\n"},
	{"f4_special", "f4_special\nnan\ninf\n-inf\n-0\n0.1\n0.33333334\n1e-45\n3.4028235e+38\n"},
	{"f8_special", "f8_special\nnan\ninf\n-inf\n-0\n0.1\n0.3333333333333333\n5e-324\n1.7976931348623157e+308\n1e-300\n"},
	{"s8", "s8\nplain\n\"a,b\"\n\"q\"\"t\"\n\"two\nline\"\n\"\"\neight ch\n"},
	{"vlen_str", "vlen_str\nalpha\n\"β,γ\"\n\"q\"\"uote\"\n\"\"\n\"multi\nline\"\n" + strings.Repeat("é", 20) + "\n"},
	{"vlen_ascii", "vlen_ascii\nx\nyy\n\"z,z\"\n"},
	{"enum", "enum\nRED\nBLUE\nGREEN\nRED\n"},
	{"bool", "bool\ntrue\nfalse\ntrue\n"},
	{"cmp1", "id,x,tag,name,ok,color\n0,0.5,a,one,true,RED\n10,nan,\"b,c\",two words,false,GREEN\n" +
		"20,-inf,\"\",\"\",false,BLUE\n30,1e+100,\"d\"\"e\",drei,true,BLUE\n40,-2,fghijk,ünf,true,RED\n"},
	{"m2_i4", "c0,c1,c2,c3,c4\n0,1,2,3,4\n5,6,7,8,9\n10,11,12,13,14\n15,16,17,18,19\n"},
	{"m3_f8", ""},
	{"m2_cmp", "c0,c1,c2\n" +
		`"{""a"":1,""b"":0.5}","{""a"":2,""b"":-1.5}","{""a"":3,""b"":""Infinity""}"` + "\n" +
		`"{""a"":4,""b"":0}","{""a"":5,""b"":1e-07}","{""a"":6,""b"":2.5}"` + "\n"},
	{"arr_elem", "c0,c1,c2\n-5,-4,-3\n-2,-1,0\n1,2,3\n4,5,6\n7,8,9\n10,11,12\n13,14,15\n16,17,18\n"},
	{"chunk_gz", ""},
	{"wide_u1", ""},
	{"m3_chunked", ""},
	{"empty1", "empty1\n"},
	{"empty2", "c0,c1,c2\n"},
	{"null", "null\n"},
}

// openDataset opens dataset /name of testdata/dscsv.h5.
func openDataset(t *testing.T, name string) *h5core.Dataset {
	t.Helper()
	f, err := h5core.Open("testdata/dscsv.h5")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	o, err := f.Open("/" + name)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestDatasetCSV renders every dataset of testdata/dscsv.h5 as CSV,
// checks the views (estimate an upper bound, exact size after Finalize,
// random reads), the bytes of the small ones, and has pandas compare them
// all with h5py's values.
func TestDatasetCSV(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range dscsvDatasets {
		tb, err := DatasetTable(openDataset(t, tc.name))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		v, err := NewCSVView(tb, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		est := v.Size()
		b := checkView(t, v)
		if est < int64(len(b)) {
			t.Errorf("%s: estimate %d below the size %d", tc.name, est, len(b))
		}
		if tc.want != "" && string(b) != tc.want {
			t.Errorf("%s: CSV\n%q\nwant\n%q", tc.name, b, tc.want)
		}
		if err := os.WriteFile(filepath.Join(dir, tc.name+".csv"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	needPython(t, "numpy", "h5py", "pandas")
	out, err := exec.Command(debianPython, "testdata/check_dscsv.py", "testdata/dscsv.h5", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("check_dscsv.py: %v\n%s", err, out)
	}
	if got := strings.Count(string(out), "ok "); got != len(dscsvDatasets) {
		t.Fatalf("check_dscsv.py checked %d datasets:\n%s", got, out)
	}
}

// TestDatasetCSVUnsupported: datasets without a CSV form say so with
// ErrUnsupported.
func TestDatasetCSVUnsupported(t *testing.T) {
	for _, name := range []string{"nocols", "vlen_seq"} {
		if _, err := DatasetTable(openDataset(t, name)); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", name, err)
		}
	}
}

// TestDatasetCSVLayout checks the row units: chunk-aligned along the
// first axis, and CSV blocks bounded in bytes for a wide matrix, whose
// row ranges are read once for all columns and not kept.
func TestDatasetCSVLayout(t *testing.T) {
	for _, tc := range []struct {
		name             string
		cols, rows, unit int64
	}{
		{"chunk_gz", 1, 140000, 1000},
		{"wide_u1", 1000, 2500, 100},
		{"m3_chunked", 4, 30, 10}, // chunks of 2 along axis 0, 5 rows each
		{"m3_f8", 4, 6, 6},        // contiguous: one unit
		{"arr_elem", 3, 8, 8},
	} {
		tb, err := DatasetTable(openDataset(t, tc.name))
		if err != nil {
			t.Fatal(err)
		}
		rows, unit, err := checkTable(tb)
		if err != nil || int64(len(tb.Columns)) != tc.cols || rows != tc.rows || unit != tc.unit {
			t.Errorf("%s: %d columns, %d rows, units of %d (%v); want %d, %d, %d",
				tc.name, len(tb.Columns), rows, unit, err, tc.cols, tc.rows, tc.unit)
		}
	}
	tb, _ := DatasetTable(openDataset(t, "wide_u1"))
	v, err := NewCSVView(tb, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if perRow := int64(1000 * 4); v.block%100 != 0 || v.block*perRow > csvBlockBytes || v.block >= 2500 {
		t.Errorf("wide_u1: blocks of %d rows", v.block)
	}
	checkView(t, v)
	if r := tb.Columns[0].(datasetColumn).r; len(r.blocks.m) != 0 {
		t.Errorf("wide_u1: %d row ranges kept after reading", len(r.blocks.m))
	}
}

// TestDatasetCSVCache: a second view of the same file takes the exact
// size from the cache without a data pass.
func TestDatasetCSVCache(t *testing.T) {
	cache, err := NewCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Cache: cache, Key: FileID{Path: "/dscsv.h5", Size: 1}.Key("/chunk_gz")}
	tb, _ := DatasetTable(openDataset(t, "chunk_gz"))
	v, _ := NewCSVView(tb, opts)
	b := checkView(t, v)
	tb2, _ := DatasetTable(openDataset(t, "chunk_gz"))
	v2, _ := NewCSVView(tb2, opts)
	if !v2.Exact() || v2.Size() != int64(len(b)) {
		t.Fatalf("cached view: exact %v, size %d, want %d", v2.Exact(), v2.Size(), len(b))
	}
}

func TestSharedBlocks(t *testing.T) {
	s := sharedBlocks{max: 10}
	var reads atomic.Int64
	read := func() ([]byte, error) { reads.Add(1); return []byte("block"), nil }
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b, err := s.take(10, 5, 3, read); string(b) != "block" || err != nil {
				t.Errorf("take: %q, %v", b, err)
			}
		}()
	}
	wg.Wait()
	if reads.Load() != 1 || len(s.m) != 0 {
		t.Fatalf("%d reads for 3 takers, %d ranges kept", reads.Load(), len(s.m))
	}
	s.take(0, 5, 2, read)
	s.drop(0)
	s.take(0, 5, 2, read)
	if reads.Load() != 3 || len(s.m) != 1 {
		t.Fatalf("after a drop: %d reads, %d ranges kept", reads.Load(), len(s.m))
	}
	s.max = 2 // the range at 0, missing a taker, goes when two more are held
	s.take(1, 5, 2, read)
	s.take(2, 5, 2, read)
	if s.m[0] != nil || len(s.m) != 2 {
		t.Fatalf("oldest range kept: %d held", len(s.m))
	}
	bad := errors.New("bad")
	if _, err := s.take(20, 5, 2, func() ([]byte, error) { return nil, bad }); err != bad || s.m[20] != nil {
		t.Fatalf("failed read: %v, kept %v", err, s.m[20] != nil)
	}
}

func TestCSVBlock(t *testing.T) {
	for _, tc := range []struct{ unit, perRow, want int64 }{
		{1000, 12, 65000}, // narrow: whole units up to csvBlockRows
		{1 << 20, 12, 1 << 16},
		{100, 4001, 2000},  // wide: bounded in bytes, whole units
		{3000, 4001, 2096}, // wide with long units
		{1, 1 << 30, 1},    // one huge row
	} {
		if got := csvBlock(tc.unit, tc.perRow); got != tc.want {
			t.Errorf("csvBlock(%d, %d) = %d, want %d", tc.unit, tc.perRow, got, tc.want)
		}
	}
}
