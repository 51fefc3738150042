package table

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
	"github.com/h5fs/h5fs/internal/h5wasmtest"
)

// vlenFiles are gen_vlen.py's tables, in the earliest and latest format.
var vlenFiles = []string{"write_vlen.h5", "write_vlen_latest.h5"}

// vlenRow is row i of the rows vlenRows makes: nil is missing.
func vlenRow(i int) (x int32, s, note, det, lvl *string) {
	str := func(v string) *string { return &v }
	x = int32(i*31%900 - 450)
	switch i % 6 {
	case 0:
		s = str("") // the fill: missing
	case 1:
		s = str(fmt.Sprintf("w%d", i%9)) // new to the BITMAP values
	case 2:
		s = nil // missing: stored as the fill, ""
	case 3:
		s = str("γάμμα")
	default:
		s = str(strings.Repeat("ζ", i%50))
	}
	if i%5 != 2 {
		note = str(fmt.Sprintf("m%d", i))
		if i%10 == 4 {
			note = str("") // a value: this column's fill is "<NA>"
		}
	}
	if i%4 != 1 {
		det = str([]string{"ECAL", "HCAL", "MUON"}[i%3])
	}
	if i%13 == 0 {
		det = str("TRACKER") // a new label
	}
	lvl = str([]string{"low", "high"}[i%2])
	return
}

// vlenRows encodes rows [seq, seq+k) (vlenRow) for gen_vlen.py's table.
func vlenRows(t *testing.T, tb *Table, seq, k int) [][]byte {
	t.Helper()
	mem := memory.DefaultAllocator
	x := array.NewInt32Builder(mem)
	bs := []*array.StringBuilder{array.NewStringBuilder(mem), array.NewStringBuilder(mem), array.NewStringBuilder(mem), array.NewStringBuilder(mem)}
	for i := seq; i < seq+k; i++ {
		xv, s, note, det, lvl := vlenRow(i)
		x.Append(xv)
		for j, v := range []*string{s, note, det, lvl} {
			if v == nil {
				bs[j].AppendNull()
			} else {
				bs[j].Append(*v)
			}
		}
	}
	builders := []array.Builder{x, bs[0], bs[1], bs[2], bs[3]}
	var cols [][]byte
	for j, b := range builders {
		a := b.NewArray()
		raw, err := tb.Columns[j].Encode(a)
		if err != nil {
			t.Fatal(err)
		}
		a.Release()
		cols = append(cols, raw)
	}
	return cols
}

// wantVlen returns what libhdf5 reads in columns s and note for the
// rows vlenRow numbers seq on: missing values as the fills.
func wantVlen(seq, k int) (s, note []string) {
	for i := seq; i < seq+k; i++ {
		_, sv, nv, _, _ := vlenRow(i)
		if sv == nil {
			sv = new(string)
		}
		if nv == nil {
			v := "<NA>"
			nv = &v
		}
		s, note = append(s, *sv), append(note, *nv)
	}
	return
}

// readVlen returns columns s and note of /t, rows [lo, hi), as h5py
// reads them.
func readVlen(t *testing.T, name string, lo, hi int) (s, note []string) {
	t.Helper()
	py := `import h5py, json, sys
g = h5py.File(sys.argv[1], "r")["t"]
lo, hi = int(sys.argv[2]), int(sys.argv[3])
print(json.dumps([[v.decode() for v in g[c][lo:hi]] for c in ("s", "note")]))`
	cmd := exec.Command("/usr/bin/python3", "-c", py, name, fmt.Sprint(lo), fmt.Sprint(hi))
	cmd.Env = append(os.Environ(), "HDF5_USE_FILE_LOCKING=FALSE")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	var cols [2][]string
	if err := json.Unmarshal(out, &cols); err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	return cols[0], cols[1]
}

// TestAppendUpdateVlen appends rows with variable-length strings (empty,
// missing, non-ASCII, new BITMAP values) to tables h5py wrote in the
// earliest and latest format, rewrites string cells, truncates and
// appends again, checking after each step the values h5py reads, every
// index (h5fs's verifier and check_write.py's recomputation) and, at the
// end, h5dump and libhdf5 2.0 (h5wasm) reading the whole file.
func TestAppendUpdateVlen(t *testing.T) {
	for _, file := range vlenFiles {
		t.Run(file, func(t *testing.T) {
			name := copyFile(t, "testdata/"+file)
			rw, err := h5core.OpenRW(name)
			if err != nil {
				t.Fatal(err)
			}
			s, note := readVlen(t, name, 0, 40)
			for _, k := range []int{5, 30} {
				n := len(s)
				mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Append(tx, vlenRows(t, tb, n, k)) })
				ws, wn := wantVlen(n, k)
				s, note = append(s, ws...), append(note, wn...)
				checkWritten(t, rw, name, int64(len(s)))
			}
			gs, gn := readVlen(t, name, 0, len(s))
			if fmt.Sprint(gs) != fmt.Sprint(s) || fmt.Sprint(gn) != fmt.Sprint(note) {
				t.Fatalf("h5py reads\n%q\n%q\nwant\n%q\n%q", gs, gn, s, note)
			}
			// cells: s across a chunk boundary, note in two runs
			mutate(t, rw, func(tb *Table, tx Tx) error {
				cols := vlenRows(t, tb, 500, 20)
				sv, _ := stagedStrings("s", cols[1])
				nv, _ := stagedStrings("note", cols[2])
				stage := func(vs [][]byte) []byte {
					var b []byte
					for _, v := range vs {
						b = append(b, byte(len(v)), 0, 0, 0)
						b = append(b, v...)
					}
					return b
				}
				return tb.Update(tx, []Cells{
					{Column: 1, Row: 10, Values: cols[1]},
					{Column: 2, Row: 0, Values: stage(nv[:3])},
					{Column: 2, Row: 70, Values: stage(nv[3:5])},
					{Column: 1, Row: 29, Values: stage(sv[:1])},
				})
			})
			ws, wn := wantVlen(500, 20)
			copy(s[10:], ws)
			copy(note[0:], wn[:3])
			copy(note[70:], wn[3:5])
			s[29] = ws[0]
			checkWritten(t, rw, name, int64(len(s)))
			mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Truncate(tx, 33) })
			s, note = s[:33], note[:33]
			checkWritten(t, rw, name, 33)
			mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Append(tx, vlenRows(t, tb, 700, 9)) })
			ws, wn = wantVlen(700, 9)
			s, note = append(s, ws...), append(note, wn...)
			checkWritten(t, rw, name, int64(len(s)))
			gs, gn = readVlen(t, name, 0, len(s))
			if fmt.Sprint(gs) != fmt.Sprint(s) || fmt.Sprint(gn) != fmt.Sprint(note) {
				t.Fatalf("h5py reads\n%q\n%q\nwant\n%q\n%q", gs, gn, s, note)
			}
			checkHeapShared(t, rw.File())
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}
			if err := crashtest.H5dump(name); err != nil {
				t.Error(err)
			}
			if err := crashtest.H5ls(name); err != nil {
				t.Error(err)
			}
			wasm := h5wasmtest.Dump(t, name, "/t/s", "/t/note")
			for col, want := range map[string][]string{"/t/s": s, "/t/note": note} {
				var got []any
				if err := json.Unmarshal(wasm.Dataset(t, col).Values, &got); err != nil {
					t.Fatal(err)
				}
				if len(got) < len(want) || fmt.Sprint(got[:len(want)]) != fmt.Sprint(want) {
					t.Errorf("libhdf5 2.0 reads %s as %q, want %q", col, got, want)
				}
			}
		})
	}
}

// checkHeapShared fails t when two string elements of gen_vlen.py's
// table (columns, fill values, CHUNK_MINMAX bounds, BITMAP values) point
// at the same global heap object: libhdf5, overwriting one, would delete
// the other's text.
func checkHeapShared(t *testing.T, f *h5core.File) {
	t.Helper()
	seen := map[string]string{}
	add := func(where string, e []byte) {
		id := string(e[4:])
		if strings.Trim(id, "\x00") == "" {
			return // a null element
		}
		if w, dup := seen[id]; dup {
			t.Errorf("%s and %s share a heap object", w, where)
		}
		seen[id] = where
	}
	for _, path := range []string{"/t/s", "/t/note", "/t/SEARCH_INDEXES/s__chunk_minmax", "/t/SEARCH_INDEXES/note__chunk_minmax", "/t/SEARCH_INDEXES/s__bitmap__values"} {
		o, err := f.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := o.Dataset()
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, ds.Size())
		if _, err := ds.ReadAt(raw, 0); err != nil {
			t.Fatal(err)
		}
		size := ds.Type.Size
		for i := 0; i < len(raw)/size; i++ {
			e := raw[i*size : (i+1)*size]
			if ds.Type.Class == h5core.ClassCompound {
				for _, fl := range ds.Type.Fields[:2] {
					add(fmt.Sprintf("%s[%d].%s", path, i, fl.Name), e[fl.Offset:fl.Offset+fl.Type.Size])
				}
				continue
			}
			add(fmt.Sprintf("%s[%d]", path, i), e)
		}
		if fill, ok := ds.FillValue(); ok && ds.Type.Class == h5core.ClassVlen {
			add(path+" fill value", fill)
		}
	}
}

// TestVlenEncodeRefusals: strings the column would not read back, and
// staged values that do not parse, are refused naming the column.
func TestVlenEncodeRefusals(t *testing.T) {
	f, err := h5core.Open("testdata/write_vlen.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tb, err := Open(f, "/t", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.Append("ok")
	b.Append("nul\x00inside")
	a := b.NewArray()
	defer a.Release()
	if _, err := tb.Columns[1].Encode(a); err == nil || !strings.Contains(err.Error(), "/t/s: row 1") {
		t.Errorf("a NUL inside a NULLTERM string: %v", err)
	}
	if _, err := tb.Columns[1].rowsOf([]byte{5, 0, 0, 0, 'a'}); err == nil || !strings.Contains(err.Error(), "/t/s") {
		t.Errorf("a staged string overrunning its bytes: %v", err)
	}
}

// TestCrashReplayVlen replays an append of string rows (new heap
// collections, index bounds and BITMAP values in the heap, a new label
// added to a categories dataset) and an update of string cells at every
// prefix of their writes and fsyncs, with the disk reordering the writes
// between two fsyncs too.
func TestCrashReplayVlen(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(tb *Table, tx Tx) error
	}{
		{"append", func(tb *Table, tx Tx) error { return tb.Append(tx, vlenRows(t, tb, 39, 20)) }},
		{"update", func(tb *Table, tx Tx) error {
			cols := vlenRows(t, tb, 500, 20)
			return tb.Update(tx, []Cells{{Column: 1, Row: 10, Values: cols[1]}, {Column: 2, Row: 20, Values: cols[2]}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := replayMutation(t, "testdata/write_vlen.h5", &crashtest.Recorder{}, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d crash states checked", n)
		})
	}
}

// TestCrashReplayVlenCatchesMissingBarrier: an append of string rows
// without its barrier before NROWS must fail the replay (NROWS durable
// before the strings' heap objects and the elements pointing at them).
func TestCrashReplayVlenCatchesMissingBarrier(t *testing.T) {
	_, err := replayMutation(t, "testdata/write_vlen.h5", &crashtest.Recorder{}, func(tb *Table, tx Tx) error {
		return tb.Append(noBarrier{tx.(*h5core.Tx)}, vlenRows(t, tb, 39, 20))
	})
	if err == nil {
		t.Fatal("an append of strings without a barrier before NROWS passed the crash replay")
	}
	t.Logf("caught: %v", err)
}

// TestCrashReplayVlenCatchesReorder drops the data file's third fsync
// from the record of an append of string rows: the one after the string
// columns' index changes and before their grown extents. Only a
// reordered state (a new extent kept, the index pointer before it lost)
// shows it, and the harness must find it: libhdf5 reads the missing
// chunk of a variable-length column by converting its fill value through
// the global heap, which a file open read-only refuses.
func TestCrashReplayVlenCatchesReorder(t *testing.T) {
	rec := &crashtest.Recorder{DropSync: crashtest.DropNthSync(".h5", 3)}
	_, err := replayMutation(t, "testdata/write_vlen.h5", rec, func(tb *Table, tx Tx) error {
		return tb.Append(tx, vlenRows(t, tb, 39, 20))
	})
	if err == nil {
		t.Fatal("string columns grown without the fsync after their index passed the crash replay")
	}
	if !strings.Contains(err.Error(), "alone lost") {
		t.Errorf("caught, but not by a reordered state: %v", err)
	}
	t.Logf("caught: %v", err)
}

// FuzzStagedStrings: staged values that do not parse are an error,
// never a panic, and those that do give back their bytes.
func FuzzStagedStrings(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0})
	f.Add([]byte{255, 255, 255, 255, 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := stagedStrings("/t/s", b)
		if err != nil {
			return
		}
		n := 0
		for _, v := range s {
			n += 4 + len(v)
		}
		if n != len(b) {
			t.Fatalf("%d strings cover %d of %d bytes", len(s), n, len(b))
		}
	})
}

// TestAppendNewLabels: new labels of a categorical column whose
// CATEGORIES dataset can grow (chunked, unlimited) are appended to it,
// in the order first seen, and the rows take their new codes, through
// Encode (labels) and EncodeRaw (codes, only known ones); a new label of
// a column whose labels cannot grow (contiguous) is an error naming the
// column and the label. h5py reads the codes and labels back.
func TestAppendNewLabels(t *testing.T) {
	name := copyFile(t, "testdata/write_vlen.h5")
	rw, err := h5core.OpenRW(name)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Open(rw.File(), "/t", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	det, lvl := tb.Columns[3], tb.Columns[4]
	labels := func(vs ...string) *array.String {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		for _, v := range vs {
			if v == "" {
				b.AppendNull()
			} else {
				b.Append(v)
			}
		}
		return b.NewStringArray()
	}
	if _, err := lvl.Encode(labels("low", "mid")); err == nil || !strings.Contains(err.Error(), "/t/lvl: row 1") || !strings.Contains(err.Error(), `"mid"`) {
		t.Errorf("a new label of a contiguous categories dataset: %v", err)
	}
	if _, err := det.EncodeRaw([]byte{1, 7}); err == nil || !strings.Contains(err.Error(), "/t/det: row 1: code 7") {
		t.Errorf("a raw code past the labels: %v", err)
	}
	mutate(t, rw, func(tb *Table, tx Tx) error {
		cols := vlenRows(t, tb, 40, 5)
		d, err := tb.Columns[3].Encode(labels("TRACKER", "HCAL", "PIXEL", "", "TRACKER"))
		if err != nil {
			return err
		}
		cols[3] = d
		return tb.Append(tx, cols)
	})
	checkWritten(t, rw, name, 45)
	mutate(t, rw, func(tb *Table, tx Tx) error {
		raw, err := tb.Columns[3].EncodeRaw([]byte{4, 0x81})
		if err != nil {
			return err
		}
		d, err := tb.Columns[3].Encode(labels("SCINT"))
		if err != nil {
			return err
		}
		return tb.Update(tx, []Cells{{Column: 3, Row: 0, Values: raw}, {Column: 3, Row: 2, Values: d}})
	})
	checkWritten(t, rw, name, 45)
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	py := `import h5py, sys
g = h5py.File(sys.argv[1], "r")["t"]
print(list(g["det"][40:45]), list(g["det"][0:3]), [v.decode() for v in g["CATEGORIES/det"][:]])`
	out, err := exec.Command("/usr/bin/python3", "-c", py, name).CombinedOutput()
	want := "[3, 1, 4, -127, 3] [4, -127, 5] ['ECAL', 'HCAL', 'MUON', 'TRACKER', 'PIXEL', 'SCINT']\n"
	if err != nil || string(out) != want {
		t.Errorf("h5py reads %s(%v), want %s", out, err, want)
	}
}
