package fuse_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// The random HEP001 files: testdata/randhep.py writes, for each seed, a
// file of random tables and the values its own model says a reader must
// show (see the script's doc).
const (
	randhepScript = "testdata/randhep.py"
	// randhepSeeds is the number of seeds checked by default (seeds
	// 1..randhepSeeds); H5FS_RANDHEP_SEEDS=N checks seeds 1..N,
	// H5FS_RANDHEP_SEEDS=1001-2000 a range and =7,42 just those.
	randhepSeeds = 64
)

// randExpected is a random file's expected JSON.
type randExpected struct {
	Seed     int64                  `json:"seed"`
	LibVer   []string               `json:"libver"`
	Tables   []randTable            `json:"tables"`
	Others   []fusetest.ExpectedObj `json:"other_objects"`
	Findings []randFinding          `json:"findings"`
}

// randTable is one table of a random file.
type randTable struct {
	fusetest.ExpectedTable
	Extent      int64             `json:"extent"`
	ColumnOrder []string          `json:"column_order"` // nil: no column-order attribute
	Columns     []randColumn      `json:"columns"`
	Attributes  map[string]string `json:"attributes"` // string attributes of the group (TITLE, ...)
}

// randColumn is one column of a random table.
type randColumn struct {
	fusetest.ExpectedColumn
	ElemSize   int64             `json:"elem_size"`
	Attributes map[string]string `json:"attributes"` // units, description, ...
	Ordered    *bool             `json:"ordered"`    // categoricals: the categories' ordered flag
}

// randFinding is a finding a correct check reports.
type randFinding struct {
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Path     string `json:"path"`
}

// TestRandomHEP001 generates HEP001 files with random tables, mounts
// each through the kernel and checks every view of every table against
// the generator's model: each column's .csv, .raw and .arrow, the whole
// table's .csv, .arrow and .parquet (values, types, field and schema
// metadata); that stat sizes equal the bytes read, and before any open
// bound them where a bound is known without a data pass; that no row
// past NROWS shows; and that validating the file with its search indexes
// recomputed (h5fs check --verify-indexes) finds exactly the generator's
// deliberate non-conformances.
func TestRandomHEP001(t *testing.T) {
	if err := exec.Command(python, "-c", "import h5py, numpy").Run(); err != nil {
		t.Skipf("%s has no h5py/numpy (scripts/test.sh installs python3-h5py): %v", python, err)
	}
	seeds, err := randhepSeedList(os.Getenv("H5FS_RANDHEP_SEEDS"))
	if err != nil {
		t.Fatal(err)
	}
	dir := generateRandhep(t, seeds)
	var tables, columns int
	for _, s := range seeds {
		name := filepath.Join(dir, fmt.Sprintf("randhep_%d.h5", s))
		exp := loadRandExpected(t, name)
		for _, tb := range exp.Tables {
			tables++
			columns += len(tb.Columns)
		}
		t.Run(fmt.Sprintf("seed%d", s), func(t *testing.T) {
			checkRandomFile(t, name, exp)
			if t.Failed() {
				t.Logf("seed %d (libver %s): reproduce with H5FS_RANDHEP_SEEDS=%d-%d go test -run TestRandomHEP001 ./test/fuse/; "+
					"file and expected JSON kept as %s", exp.Seed, exp.LibVer, s, s, keepFile(t, name))
			}
		})
	}
	t.Logf("%d seeds, %d tables, %d columns", len(seeds), tables, columns)
}

// generateRandhep writes the random files of seeds (randhep_SEED.h5 and
// their expected JSON) into a new directory and returns it.
func generateRandhep(t *testing.T, seeds []int) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{randhepScript, dir}
	for _, s := range seeds {
		args = append(args, strconv.Itoa(s))
	}
	if out, err := exec.Command(python, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", randhepScript, err, out)
	}
	return dir
}

// randhepSeedList parses H5FS_RANDHEP_SEEDS: "" for the default seeds,
// N for seeds 1..N, A-B for seeds A..B, or a comma-separated list.
func randhepSeedList(env string) ([]int, error) {
	bad := fmt.Errorf("H5FS_RANDHEP_SEEDS=%q: want N, A-B or a comma-separated list of seeds", env)
	span := func(a, b int) []int {
		var out []int
		for s := a; s <= b; s++ {
			out = append(out, s)
		}
		return out
	}
	switch {
	case env == "":
		return span(1, randhepSeeds), nil
	case strings.Contains(env, ","):
		var out []int
		for _, f := range strings.Split(env, ",") {
			s, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return nil, bad
			}
			out = append(out, s)
		}
		return out, nil
	case strings.Contains(env, "-"):
		a, errA := strconv.Atoi(env[:strings.Index(env, "-")])
		b, errB := strconv.Atoi(env[strings.Index(env, "-")+1:])
		if errA != nil || errB != nil || a > b {
			return nil, bad
		}
		return span(a, b), nil
	}
	n, err := strconv.Atoi(env)
	if err != nil || n < 1 {
		return nil, bad
	}
	return span(1, n), nil
}

// keepFile copies a failing seed's file and expected JSON to the system
// temporary directory, so that they outlive the test, and returns the
// copy's name.
func keepFile(t *testing.T, name string) string {
	keep := filepath.Join(os.TempDir(), filepath.Base(name))
	for _, ext := range []string{".h5", ".expected.json"} {
		src := strings.TrimSuffix(name, ".h5") + ext
		if b, err := os.ReadFile(src); err == nil {
			if err := os.WriteFile(strings.TrimSuffix(keep, ".h5")+ext, b, 0o644); err != nil {
				t.Log(err)
			}
		}
	}
	return keep
}

func loadRandExpected(t *testing.T, h5 string) *randExpected {
	b, err := os.ReadFile(strings.TrimSuffix(h5, ".h5") + ".expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var e randExpected
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&e); err != nil {
		t.Fatalf("%s: %v", h5, err)
	}
	return &e
}

// checkRandomFile checks one random file through a kernel mount.
func checkRandomFile(t *testing.T, name string, exp *randExpected) {
	mp := fusetest.Mount(t, name, nil)
	files := readWholeMount(t, mp)
	guessed := map[string]bool{} // files whose size before open is a guess
	read := func(p string) ([]byte, bool) {
		f, ok := files[p]
		if !ok {
			t.Errorf("%s: not on the mount", strings.TrimPrefix(p, mp))
		}
		return f.data, ok
	}
	for _, tb := range exp.Tables {
		dir := fusetest.MountPath(mp, tb.Path)
		for _, c := range tb.Columns {
			col := filepath.Join(dir, fsnodeName(c.Name))
			where := tb.Path + ":" + c.Name
			if sizeGuessed(c) {
				for _, p := range []string{col + ".csv", col + ".arrow", fusetest.WholeTable(mp, tb.Path, "csv"),
					fusetest.WholeTable(mp, tb.Path, "arrow"), fusetest.WholeTable(mp, tb.Path, "parquet")} {
					guessed[p] = true
				}
			}
			if b, ok := read(col + ".csv"); ok {
				checkColumnCSV(t, where+".csv", b, tb, c)
				checkXattrs(t, where+".csv", col+".csv", c.Attributes)
			}
			if c.RawSHA256 != "" {
				if b, ok := read(col + ".raw"); ok {
					checkRaw(t, where+".raw", b, tb, c)
				}
			} else if _, ok := files[col+".raw"]; ok {
				t.Errorf("%s.raw: a raw view of a column that is not fixed-width", where)
			}
			if b, ok := read(col + ".arrow"); ok {
				recs, err := readArrowIPC(b)
				if err != nil {
					t.Errorf("%s.arrow: %v", where, err)
				} else {
					checkRecords(t, where+".arrow", recs, tb, []randColumn{c}, false)
				}
			}
		}
		checkXattrs(t, tb.Path, dir, tb.Attributes)
		order := viewOrder(t, tb)
		if b, ok := read(fusetest.WholeTable(mp, tb.Path, "csv")); ok {
			checkTableCSV(t, tb.Path+" csv", b, tb, order)
		}
		if b, ok := read(fusetest.WholeTable(mp, tb.Path, "arrow")); ok {
			recs, err := readArrowIPC(b)
			if err != nil {
				t.Errorf("%s arrow: %v", tb.Path, err)
			} else {
				checkRecords(t, tb.Path+" arrow", recs, tb, order, true)
			}
		}
		if b, ok := read(fusetest.WholeTable(mp, tb.Path, "parquet")); ok {
			recs, err := readParquet(b)
			if err != nil {
				t.Errorf("%s parquet: %v", tb.Path, err)
			} else {
				checkRecords(t, tb.Path+" parquet", recs, tb, order, true)
			}
		}
	}
	for _, o := range exp.Others {
		if b, ok := read(fusetest.MountPath(mp, o.Path) + ".raw"); ok {
			if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != o.SHA256 {
				t.Errorf("%s.raw: sha256 %x, want %s", o.Path, h, o.SHA256)
			}
		}
	}
	for p, f := range files {
		if (f.before < int64(len(f.data)) && !guessed[p]) || (f.before == 0) != (len(f.data) == 0) {
			t.Errorf("%s: stat size before open %d, content %d bytes", strings.TrimPrefix(p, mp), f.before, len(f.data))
		}
	}
	checkFindings(t, name, exp)
}

// checkXattrs checks that the string attributes want of the object shown
// at p are its user.* extended attributes (those that fit in one: Linux
// caps an extended attribute at 64 KiB).
func checkXattrs(t *testing.T, where, p string, want map[string]string) {
	for k, v := range want {
		if len(v) >= 1<<16 {
			continue
		}
		buf := make([]byte, 1<<16)
		n, err := syscall.Getxattr(p, "user."+k, buf)
		if err != nil || string(buf[:n]) != v {
			t.Errorf("%s: xattr user.%s = %.80q, %v; want %.80q", where, k, buf[:max(n, 0)], err, v)
		}
	}
}

// sizeGuessed reports a column whose views' sizes before the data pass are
// guesses, not bounds (arrowexport's csvFieldBound): variable-length
// strings and dictionary labels, whose lengths only a data pass tells.
func sizeGuessed(c randColumn) bool {
	return c.Kind == "vstr" || c.Kind == "cat" || c.Kind == "enum"
}

// mountFile is a file of the mount: its content and the size stat gave
// before any open.
type mountFile struct {
	data   []byte
	before int64
}

// readWholeMount reads every regular file of the mount at mp: stat after
// the read must give the bytes read, random reads the same bytes,
// .meta.json must be JSON. The size stat gave before any open is kept.
func readWholeMount(t *testing.T, mp string) map[string]mountFile {
	files := map[string]mountFile{}
	err := filepath.WalkDir(mp, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Errorf("walk %s: %v", p, err)
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		before, err := os.Stat(p)
		if err != nil {
			t.Errorf("%v", err)
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", strings.TrimPrefix(p, mp), err)
			return nil
		}
		after, err := os.Stat(p)
		if err != nil {
			t.Errorf("%v", err)
			return nil
		}
		if after.Size() != int64(len(data)) {
			t.Errorf("%s: stat size %d, read %d bytes", strings.TrimPrefix(p, mp), after.Size(), len(data))
		}
		checkRandomReads(t, p, data)
		if filepath.Base(p) == ".meta.json" && !json.Valid(data) {
			t.Errorf("%s is not JSON: %.200s", p, data)
		}
		files[p] = mountFile{data: data, before: before.Size()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// viewOrder returns the columns in the order the whole-table views show
// them: the row index columns, then column-order. Without column-order
// the order of the rest is the reader's choice: nil entries stand for
// "any of the remaining columns".
func viewOrder(t *testing.T, tb randTable) []randColumn {
	byName := map[string]randColumn{}
	for _, c := range tb.Columns {
		byName[c.Name] = c
	}
	var out []randColumn
	seen := map[string]bool{}
	for _, n := range tb.IndexColumns {
		if !seen[n] {
			out = append(out, byName[n])
			seen[n] = true
		}
	}
	if tb.ColumnOrder == nil {
		for range len(tb.Columns) - len(out) {
			out = append(out, randColumn{})
		}
		return out
	}
	for _, n := range tb.ColumnOrder {
		if c, ok := byName[n]; ok && !seen[n] {
			out = append(out, c)
			seen[n] = true
		}
	}
	if len(out) != len(tb.Columns) {
		t.Fatalf("%s: column-order %q does not list the %d columns", tb.Path, tb.ColumnOrder, len(tb.Columns))
	}
	return out
}

// resolveOrder fills the columns viewOrder left open from the names a
// view shows, checking that the names are the table's.
func resolveOrder(tb randTable, order []randColumn, names []string) ([]randColumn, error) {
	if len(names) != len(order) {
		return nil, fmt.Errorf("columns %q, want %d columns", names, len(order))
	}
	byName := map[string]randColumn{}
	for _, c := range tb.Columns {
		byName[c.Name] = c
	}
	out := make([]randColumn, len(order))
	used := map[string]bool{}
	for i, c := range order {
		switch {
		case c.Name == "":
			if _, ok := byName[names[i]]; !ok || used[names[i]] {
				return nil, fmt.Errorf("columns %q: %q is not a column, or shown twice", names, names[i])
			}
			out[i] = byName[names[i]]
		case c.Name != names[i]:
			return nil, fmt.Errorf("columns %q, want %q at position %d", names, c.Name, i)
		default:
			out[i] = c
		}
		used[names[i]] = true
	}
	return out, nil
}

// checkColumnCSV checks a column's CSV: header, NROWS rows, every value.
func checkColumnCSV(t *testing.T, where string, b []byte, tb randTable, c randColumn) {
	rows, err := parseCSV(b)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	if len(rows[0]) != 1 || rows[0][0] != c.Name {
		t.Errorf("%s: header %q, want %q", where, rows[0], c.Name)
	}
	if int64(len(rows)-1) != tb.NRows {
		t.Errorf("%s: %d rows, want NROWS = %d (extent %d)", where, len(rows)-1, tb.NRows, tb.Extent)
		return
	}
	for i, r := range rows[1:] {
		if err := csvCell(c, r[0], i); err != nil {
			t.Errorf("%s row %d: %v", where, i, err)
			return
		}
	}
}

// checkTableCSV checks the whole table's CSV.
func checkTableCSV(t *testing.T, where string, b []byte, tb randTable, order []randColumn) {
	rows, err := parseCSV(b)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	cols, err := resolveOrder(tb, order, rows[0])
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	if int64(len(rows)-1) != tb.NRows {
		t.Errorf("%s: %d rows, want NROWS = %d (extent %d)", where, len(rows)-1, tb.NRows, tb.Extent)
		return
	}
	for j, c := range cols {
		for i, r := range rows[1:] {
			if len(r) != len(cols) {
				t.Errorf("%s row %d: %d fields, want %d", where, i, len(r), len(cols))
				return
			}
			if err := csvCell(c, r[j], i); err != nil {
				t.Errorf("%s column %q row %d: %v", where, c.Name, i, err)
				break
			}
		}
	}
}

func parseCSV(b []byte) ([][]string, error) {
	rows, err := fusetest.ReadCSV(b)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("no header line")
	}
	return rows, nil
}

// csvCell compares CSV field got with row i of column c. (encoding/csv
// reads "\r\n" within a quoted field as "\n".)
func csvCell(c randColumn, got string, i int) error {
	want := c.Values[i]
	if w, ok := want.(string); ok {
		want = strings.ReplaceAll(w, "\r\n", "\n")
	}
	if want == nil {
		if got != "" {
			return fmt.Errorf("got %q, want an empty field (missing)", got)
		}
		return nil
	}
	switch c.Kind {
	case "float":
		return sameFloatExact(got, want, fusetest.Int(c.DType["size"]))
	case "cat":
		if w, ok := c.Labels[i].(string); ok {
			return sameText(got, strings.ReplaceAll(w, "\r\n", "\n"))
		}
		return sameText(got, c.Labels[i])
	case "opaque":
		raw, err := hex.DecodeString(want.(string))
		if err != nil {
			return err
		}
		if got != base64.StdEncoding.EncodeToString(raw) && got != want.(string) {
			return fmt.Errorf("got %q, want the bytes %s", got, want)
		}
		return nil
	case "compound", "array":
		d := json.NewDecoder(strings.NewReader(got))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return fmt.Errorf("got %q: %v", got, err)
		}
		return sameJSON(v, want, c.DType)
	}
	return sameValue(c.ExpectedColumn, got, want)
}

// sameText compares a shown label with the expected one: a string, or a
// number (integers exactly, floats at float64 precision: labels are
// short binary fractions).
func sameText(got string, want any) error {
	if w, ok := want.(json.Number); ok && strings.ContainsAny(string(w), ".eE") {
		return sameFloatExact(got, w, 8)
	}
	if fmt.Sprint(want) != got {
		return fmt.Errorf("got %q, want %v", got, want)
	}
	return nil
}

// sameFloatExact compares a float shown as text (or a float value) with
// the expected one, exactly at the column's width: size 2 and 4 compare
// as float32 (float16 values are exact float32s), 8 as float64.
func sameFloatExact(got any, want any, size int64) error {
	var g float64
	switch x := got.(type) {
	case string:
		v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return fmt.Errorf("got %q, want %v", x, want)
		}
		g = v
	case json.Number:
		v, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return fmt.Errorf("got %q, want %v", x, want)
		}
		g = v
	case float64:
		g = x
	}
	w, ok := wantFloat(want)
	if !ok {
		return fmt.Errorf("bad expected float %v", want)
	}
	switch {
	case math.IsNaN(g) && math.IsNaN(w):
	case size <= 4 && float32(g) == float32(w):
	case size == 8 && g == w:
	default:
		return fmt.Errorf("got %v, want %v", got, want)
	}
	return nil
}

// wantFloat reads an expected float: a JSON number, "NaN", "Infinity" or
// "-Infinity".
func wantFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	case string:
		switch x {
		case "NaN":
			return math.NaN(), true
		case "Infinity":
			return math.Inf(1), true
		case "-Infinity":
			return math.Inf(-1), true
		}
	}
	return 0, false
}

// sameJSON compares a compound or array value shown as JSON with the
// expected one, given the column's dtype; floats may be shown as
// numbers or as "NaN", "Infinity", "-Infinity".
func sameJSON(got, want any, dt map[string]any) error {
	switch dt["class"] {
	case "compound":
		g, ok1 := got.(map[string]any)
		w, ok2 := want.(map[string]any)
		fields, _ := dt["fields"].([]any)
		if !ok1 || !ok2 || len(g) != len(w) {
			return fmt.Errorf("got %v, want %v", got, want)
		}
		for _, f := range fields {
			fm := f.(map[string]any)
			name := fm["name"].(string)
			if err := sameJSON(g[name], w[name], fm["type"].(map[string]any)); err != nil {
				return fmt.Errorf("field %q: %v", name, err)
			}
		}
		return nil
	case "array":
		g, ok1 := got.([]any)
		w, ok2 := want.([]any)
		if !ok1 || !ok2 || len(g) != len(w) {
			return fmt.Errorf("got %v, want %v", got, want)
		}
		for i := range w {
			if err := sameJSON(g[i], w[i], dt["base"].(map[string]any)); err != nil {
				return fmt.Errorf("element %d: %v", i, err)
			}
		}
		return nil
	case "float":
		return sameFloatExact(got, want, fusetest.Int(dt["size"]))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	return nil
}

// checkRaw checks a .raw view: NROWS packed little-endian elements.
func checkRaw(t *testing.T, where string, b []byte, tb randTable, c randColumn) {
	if c.ElemSize > 0 && int64(len(b)) != tb.NRows*c.ElemSize {
		t.Errorf("%s: %d bytes, want NROWS %d × %d", where, len(b), tb.NRows, c.ElemSize)
		return
	}
	if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != c.RawSHA256 {
		t.Errorf("%s: sha256 %x, want %s (%d bytes: %.64x)", where, h, c.RawSHA256, len(b), b)
	}
}

// readArrowIPC reads an Arrow IPC file into records.
func readArrowIPC(b []byte) ([]arrow.RecordBatch, error) {
	r, err := ipc.NewFileReader(bytes.NewReader(b), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			return nil, err
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		// no batches: an empty record of the schema carries the names
		recs = append(recs, array.NewRecordBatch(r.Schema(), emptyColumns(r.Schema()), 0))
	}
	return recs, nil
}

// readParquet reads a Parquet file into records with arrow-go's reader.
// The schema of the records carries the file's key-value metadata
// (arrow-go's reader leaves it out).
func readParquet(b []byte) ([]arrow.RecordBatch, error) {
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	kv := pf.MetaData().KeyValueMetadata()
	md := arrow.NewMetadata(kv.Keys(), kv.Values())
	schema := arrow.NewSchema(tbl.Schema().Fields(), &md)
	tr := array.NewTableReader(tbl, -1)
	defer tr.Release()
	var recs []arrow.RecordBatch
	for tr.Next() {
		recs = append(recs, array.NewRecordBatch(schema, tr.RecordBatch().Columns(), tr.RecordBatch().NumRows()))
	}
	if len(recs) == 0 {
		recs = append(recs, array.NewRecordBatch(schema, emptyColumns(schema), 0))
	}
	return recs, tr.Err()
}

func emptyColumns(s *arrow.Schema) []arrow.Array {
	var out []arrow.Array
	for _, f := range s.Fields() {
		out = append(out, array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 0))
	}
	return out
}

// checkRecords checks Arrow records (of an .arrow or .parquet view)
// against the table's columns in the given order; the schema of a
// whole-table view carries the table's string attributes.
func checkRecords(t *testing.T, where string, recs []arrow.RecordBatch, tb randTable, order []randColumn, whole bool) {
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	schema := recs[0].Schema()
	var names []string
	for _, f := range schema.Fields() {
		names = append(names, f.Name)
	}
	cols, err := resolveOrder(tb, order, names)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	if n != tb.NRows {
		t.Errorf("%s: %d rows, want NROWS = %d (extent %d)", where, n, tb.NRows, tb.Extent)
		return
	}
	if whole {
		for k, v := range tb.Attributes {
			if got, ok := schema.Metadata().GetValue(k); !ok || got != v {
				t.Errorf("%s: schema metadata %s = %q, want %q", where, k, got, v)
			}
		}
	}
	for j, c := range cols {
		if err := arrowTypeFits(c, schema.Field(j).Type, strings.HasSuffix(where, "parquet")); err != nil {
			t.Errorf("%s column %q: %v", where, c.Name, err)
			continue
		}
		if err := fieldMetadataFits(tb, c, schema.Field(j), strings.HasSuffix(where, "parquet")); err != nil {
			t.Errorf("%s column %q: %v", where, c.Name, err)
		}
		row := 0
	rows:
		for _, r := range recs {
			a := r.Column(j)
			for i := 0; i < a.Len(); i++ {
				if err := arrowCell(c, a, i, row); err != nil {
					t.Errorf("%s column %q row %d: %v", where, c.Name, row, err)
					break rows
				}
				row++
			}
		}
	}
}

// arrowTypeFits checks the Arrow type a view gives a column. Read back
// from Parquet, enums and categoricals may come as their labels (arrow-go
// restores only string dictionaries) and arrays as lists.
func arrowTypeFits(c randColumn, dt arrow.DataType, parquet bool) error {
	if parquet && (c.Kind == "enum" || c.Kind == "cat" || c.Kind == "array" && dt.ID() == arrow.LIST) {
		return nil
	}
	want := map[string]arrow.Type{"float": arrow.FLOAT64, "bool8": arrow.BOOL, "enum": arrow.DICTIONARY,
		"cat": arrow.DICTIONARY, "fstr": arrow.STRING, "vstr": arrow.STRING, "opaque": arrow.FIXED_SIZE_BINARY,
		"compound": arrow.STRUCT, "array": arrow.FIXED_SIZE_LIST}[c.Kind]
	size := fusetest.Int(c.DType["size"])
	switch c.Kind {
	case "int":
		want = map[[2]any]arrow.Type{{int64(1), true}: arrow.INT8, {int64(2), true}: arrow.INT16, {int64(4), true}: arrow.INT32,
			{int64(8), true}: arrow.INT64, {int64(1), false}: arrow.UINT8, {int64(2), false}: arrow.UINT16,
			{int64(4), false}: arrow.UINT32, {int64(8), false}: arrow.UINT64}[[2]any{size, c.DType["signed"] == true}]
	case "float":
		want = map[int64]arrow.Type{2: arrow.FLOAT16, 4: arrow.FLOAT32, 8: arrow.FLOAT64}[size]
	}
	if dt.ID() != want {
		return fmt.Errorf("Arrow type %s, want %s", dt, want)
	}
	return nil
}

// fieldMetadataFits checks a column's Arrow field metadata: units (and
// the vocabulary that applies to them) and description, and for a
// categorical shown as a dictionary the ordered flag of its categories.
// (Read back from Parquet, a dictionary that arrow-go cannot restore
// loses its field's metadata too.)
func fieldMetadataFits(tb randTable, c randColumn, f arrow.Field, parquet bool) error {
	if _, dict := f.Type.(*arrow.DictionaryType); parquet && !dict && (c.Kind == "cat" || c.Kind == "enum") {
		return nil
	}
	want := map[string]string{"units": c.Attributes["units"], "description": c.Attributes["description"]}
	if want["units"] != "" {
		want["units_vocabulary"] = c.Attributes["units_vocabulary"]
		if want["units_vocabulary"] == "" {
			want["units_vocabulary"] = tb.Attributes["units_vocabulary"]
		}
	}
	for k, v := range want {
		if got, _ := f.Metadata.GetValue(k); got != v {
			return fmt.Errorf("field metadata %s = %q, want %q", k, got, v)
		}
	}
	if d, ok := f.Type.(*arrow.DictionaryType); ok && c.Kind == "cat" && d.Ordered != (c.Ordered != nil && *c.Ordered) {
		return fmt.Errorf("dictionary ordered %v, want %v (ordered attribute %v)", d.Ordered, !d.Ordered, c.Ordered)
	}
	return nil
}

// arrowCell compares element i of a with row row of column c.
func arrowCell(c randColumn, a arrow.Array, i, row int) error {
	want := c.Values[row]
	if c.Kind == "cat" {
		want = c.Labels[row]
	}
	return sameArrow(a, i, want, c.Kind, c.DType)
}

// sameArrow compares element i of a with an expected value.
func sameArrow(a arrow.Array, i int, want any, kind string, dt map[string]any) error {
	if want == nil {
		if !a.IsNull(i) {
			return fmt.Errorf("got %s, want null (missing)", a.ValueStr(i))
		}
		return nil
	}
	if a.IsNull(i) {
		return fmt.Errorf("got null, want %v", want)
	}
	switch a := a.(type) {
	case *array.Float16:
		return sameFloatExact(h5core.Float16(a.Value(i).Uint16()), want, 2)
	case *array.Float32:
		return sameFloatExact(float64(a.Value(i)), want, 4)
	case *array.Float64:
		return sameFloatExact(a.Value(i), want, 8)
	case *array.Boolean:
		if w := fmt.Sprint(want); (w == "1") != a.Value(i) || (w != "0" && w != "1") {
			return fmt.Errorf("got %v, want %s", a.Value(i), w)
		}
		return nil
	case *array.Dictionary:
		return sameArrow(a.Dictionary(), a.GetValueIndex(i), want, "", nil)
	case *array.FixedSizeBinary:
		if hex.EncodeToString(a.Value(i)) != want {
			return fmt.Errorf("got %x, want %s", a.Value(i), want)
		}
		return nil
	case *array.Struct:
		w, ok := want.(map[string]any)
		fields, _ := dt["fields"].([]any)
		if !ok || len(fields) != a.NumField() {
			return fmt.Errorf("got %s, want %v", a.ValueStr(i), want)
		}
		for k, f := range fields {
			fm := f.(map[string]any)
			name := fm["name"].(string)
			if got := a.DataType().(*arrow.StructType).Field(k).Name; got != name {
				return fmt.Errorf("field %d is %q, want %q", k, got, name)
			}
			if err := sameArrow(a.Field(k), i, w[name], "", fm["type"].(map[string]any)); err != nil {
				return fmt.Errorf("field %q: %v", name, err)
			}
		}
		return nil
	case *array.FixedSizeList:
		w, ok := want.([]any)
		n := int(a.DataType().(*arrow.FixedSizeListType).Len())
		if !ok || len(w) != n {
			return fmt.Errorf("got %s, want %v", a.ValueStr(i), want)
		}
		for k := range w {
			if err := sameArrow(a.ListValues(), (a.Offset()+i)*n+k, w[k], "", dt["base"].(map[string]any)); err != nil {
				return fmt.Errorf("element %d: %v", k, err)
			}
		}
		return nil
	case *array.List:
		w, ok := want.([]any)
		lo, hi := a.ValueOffsets(i)
		if !ok || int64(len(w)) != hi-lo {
			return fmt.Errorf("got %s, want %v", a.ValueStr(i), want)
		}
		for k := range w {
			if err := sameArrow(a.ListValues(), int(lo)+k, w[k], "", dt["base"].(map[string]any)); err != nil {
				return fmt.Errorf("element %d: %v", k, err)
			}
		}
		return nil
	case *array.String:
		if a.Value(i) != fmt.Sprint(want) {
			return fmt.Errorf("got %q, want %q", a.Value(i), want)
		}
		return nil
	}
	if got := a.ValueStr(i); got != fmt.Sprint(want) {
		return fmt.Errorf("got %s, want %v", got, want)
	}
	return nil
}

// checkFindings validates the file as `h5fs check --verify-indexes` does
// (table.Discover, then Check with every search index recomputed): it
// must find exactly the generator's tables and report exactly the
// non-conformances the generator wrote on purpose, besides the warnings
// every h5py-made table draws for its H5T_STD_REF_OBJ references (§5).
func checkFindings(t *testing.T, name string, exp *randExpected) {
	f, err := h5core.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tables, fileFindings, err := table.Discover(f, table.Lenient)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range fileFindings {
		t.Errorf("check: not shown: %s %s %s: %s", x.Severity, x.Rule, x.Path, x.Msg)
	}
	var gotPaths, wantPaths []string
	for _, tb := range exp.Tables {
		wantPaths = append(wantPaths, tb.Path)
	}
	want := map[randFinding]int{}
	for _, x := range exp.Findings {
		want[x]++
	}
	for _, tb := range tables {
		gotPaths = append(gotPaths, tb.Path)
		for _, x := range tb.Check(true) {
			if x.Rule == "§5" && x.Severity == table.SevWarning && strings.Contains(x.Msg, "H5T_STD_REF_OBJ") {
				continue
			}
			k := randFinding{Severity: x.Severity, Rule: x.Rule, Path: x.Path}
			if want[k] > 0 {
				want[k]--
				continue
			}
			t.Errorf("check: %s %s %s: %s", x.Severity, x.Rule, x.Path, x.Msg)
		}
	}
	for k, n := range want {
		if n > 0 {
			t.Errorf("check: no %s %s for %s", k.Severity, k.Rule, k.Path)
		}
	}
	slices.Sort(gotPaths)
	slices.Sort(wantPaths)
	if !slices.Equal(gotPaths, wantPaths) {
		t.Errorf("check: tables %q, want %q", gotPaths, wantPaths)
	}
}
