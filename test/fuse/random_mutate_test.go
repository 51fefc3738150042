package fuse_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// randhepMutateSeeds is how many of the random files (seeds 1..N)
// TestRandomHEP001Mutate changes by default; H5FS_RANDHEP_SEEDS chooses
// them as for TestRandomHEP001.
const randhepMutateSeeds = 16

// TestRandomHEP001Mutate mounts random HEP001 files read-write and
// changes every table with rows three ways: appends its first rows back
// through its CSV view (the lines exactly as the view served them, as
// many as every column's maximum extent leaves room for), truncates it by
// truncate(2) of a column's .raw file, and updates one row of every
// fixed-width column by a pwrite into its .raw file of another row's
// element. After unmounting, libhdf5 (h5py, check_mutated.py) sees NROWS
// grown by the rows appended less those truncated, the old rows
// unchanged but for the updated cells, those equal to the rows they
// copy, the new rows equal to the rows they copy, and check_write.py
// finds every search index equal to one recomputed from scratch; h5dump
// reads the whole file, and a user block is left as it was.
//
// A refused operation must change nothing and the mount must log why,
// naming one of mutateLimits; the test logs every refusal with that
// reason, counts the tables that took every operation they can (an
// append only when there is room), and requires them to be at least
// three quarters of the tables without HEP001 errors.
func TestRandomHEP001Mutate(t *testing.T) {
	seeds, err := randhepSeedList(os.Getenv("H5FS_RANDHEP_SEEDS"))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("H5FS_RANDHEP_SEEDS") == "" {
		seeds = seeds[:randhepMutateSeeds]
	}
	dir := generateRandhep(t, seeds)
	var sum mutateTally
	for _, s := range seeds {
		name := filepath.Join(dir, fmt.Sprintf("randhep_%d.h5", s))
		exp := loadRandExpected(t, name)
		t.Run(fmt.Sprintf("seed%d", s), func(t *testing.T) {
			sum.add(mutateRandomFile(t, name, exp, s))
			if t.Failed() {
				t.Logf("reproduce with H5FS_RANDHEP_SEEDS=%d go test -run TestRandomHEP001Mutate ./test/fuse/", s)
			}
		})
	}
	reasons := make([]string, 0, len(sum.reasons))
	for r, n := range sum.reasons {
		reasons = append(reasons, fmt.Sprintf("%4d× %s", n, r))
	}
	sort.Strings(reasons)
	t.Logf("%d seeds, %d tables with rows (%d with HEP001 errors): %d mutated (every operation they can take), %d appended to, %d truncated, %d updated; %d cells updated, %d column updates refused; %d tables refused some operation, by reason:\n%s",
		len(seeds), sum.tables, sum.nonconformant, sum.mutated, sum.appended, sum.truncated, sum.updated, sum.cells, sum.cellsRefused, sum.tables-sum.mutated, strings.Join(reasons, "\n"))
	if conformant := sum.tables - sum.nonconformant; conformant == 0 || sum.mutated*4 < conformant*3 {
		t.Errorf("%d of %d tables without HEP001 errors mutated: want at least three quarters", sum.mutated, conformant)
	}
}

// mutateLimits are the refusals that name a real limitation: h5fs
// writes no table with HEP001 errors (a mutation starts from a table
// where §12 holds) and grows no column past its maximum extent (tried
// only when some column has no room left).
var mutateLimits = []string{
	"table has errors: ",
	"cannot hold N rows: a column's maximum extent is N",
}

// mutateTally counts what TestRandomHEP001Mutate did.
type mutateTally struct {
	tables, mutated, appended, truncated, updated int
	nonconformant                                 int // tables refused for their HEP001 errors
	cells, cellsRefused                           int
	reasons                                       map[string]int // refusal reasons (file-specific parts cut)
}

func (m *mutateTally) add(o mutateTally) {
	m.tables += o.tables
	m.mutated += o.mutated
	m.nonconformant += o.nonconformant
	m.appended += o.appended
	m.truncated += o.truncated
	m.updated += o.updated
	m.cells += o.cells
	m.cellsRefused += o.cellsRefused
	if m.reasons == nil {
		m.reasons = map[string]int{}
	}
	for r, n := range o.reasons {
		m.reasons[r] += n
	}
}

// headLines returns the first n records of CSV text b, bytes as they are.
func headLines(b []byte, n int) ([]byte, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	for range n {
		if _, err := r.Read(); err != nil {
			return nil, err
		}
	}
	return b[:r.InputOffset()], nil
}

// mountLog keeps the lines a mount logs, to tell why an operation was
// refused; the test logs them all when it fails.
type mountLog struct {
	t     testing.TB
	mu    sync.Mutex
	lines []string
}

func (l *mountLog) Write(p []byte) (int, error) {
	s := strings.TrimSuffix(string(p), "\n")
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
	return len(p), nil
}

// since returns the last line logged after the first n (the reason an
// operation was refused), or "".
func (l *mountLog) since(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) <= n {
		return ""
	}
	return l.lines[len(l.lines)-1]
}

func (l *mountLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// reasonKey cuts the file-specific parts off a refusal reason (the
// names of the file and objects before it, the numbers in it), so that
// the summary groups them.
func reasonKey(reason string) string {
	reason = strings.TrimSuffix(reason, "; nothing more of this open file is committed")
	if i := strings.Index(reason, ": error: "); i >= 0 {
		return "table has errors: " + reason[i+len(": error: "):]
	}
	if i := strings.Index(reason, "cannot hold"); i >= 0 {
		// "... is N (COLUMN, LAYOUT layout)": the column's layout only
		reason = reason[i:]
		if i, j := strings.LastIndex(reason, " ("), strings.LastIndex(reason, ", "); i >= 0 && j > i {
			reason = reason[:i] + " (" + reason[j+2:]
		}
	}
	if i := strings.LastIndex(reason, ": /"); i >= 0 {
		reason = reason[i+2:]
		if j := strings.Index(reason, ": "); j >= 0 {
			reason = reason[j+2:]
		}
	}
	return digits.ReplaceAllString(reason, "N")
}

var digits = regexp.MustCompile(`[0-9]+`)

// roomFor returns how many rows table tb can grow by: the smallest
// maximum extent of its columns less NROWS.
func roomFor(t *testing.T, f *h5core.File, tb randTable) int64 {
	room := int64(1) << 62
	for _, c := range tb.Columns {
		o, err := f.Open(strings.TrimSuffix(tb.Path, "/") + "/" + c.Name)
		if err != nil {
			t.Fatalf("%s/%s: %v", tb.Path, c.Name, err)
		}
		ds, err := o.Dataset()
		if err != nil {
			t.Fatalf("%s/%s: %v", tb.Path, c.Name, err)
		}
		if mx := ds.MaxShape(); len(mx) > 0 && mx[0] < uint64(room+tb.NRows) {
			room = int64(mx[0]) - tb.NRows
		}
	}
	return room
}

// cellUpdate is row Row of column Column set to the element of row Src.
type cellUpdate struct {
	Column   string `json:"column"`
	Row, Src int64
}

// mutateRandomFile appends to, truncates and updates every table of one
// random file through a read-write mount, then checks the file with
// h5py.
func mutateRandomFile(t *testing.T, name string, exp *randExpected, seed int) (tally mutateTally) {
	tally.reasons = map[string]int{}
	orig := name + ".orig.h5"
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(orig, b, 0o644); err != nil {
		t.Fatal(err)
	}
	type change struct {
		path    string
		k, j    int64
		updates []cellUpdate
	}
	var changes []change
	for _, tb := range exp.Tables {
		if tb.NRows > 0 {
			tally.tables++
		}
	}
	rw, err := h5core.OpenRW(name)
	if err != nil {
		t.Logf("not writable: %v", err)
		tally.reasons[reasonKey(err.Error())] += tally.tables
		return tally
	}
	rw.Close()
	f, err := h5core.Open(orig)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logs := &mountLog{t: t}
	mp, unmount := fusetest.MountRW(t, name, logs)
	for _, tb := range exp.Tables {
		if tb.NRows == 0 {
			continue
		}
		seen := map[string]bool{}
		refuse := func(op string, err error, at int) {
			reason := logs.since(at)
			if reason == "" {
				reason = err.Error()
			}
			why := reasonKey(reason)
			key := op + ": " + why
			if !seen[key] {
				t.Logf("%s: %s refused: %v (mount: %s)", tb.Path, op, err, reason)
				if !slices.ContainsFunc(mutateLimits, func(l string) bool { return strings.HasPrefix(why, l) }) {
					t.Errorf("%s: %s refused for a reason that is no known limitation: %s", tb.Path, op, reason)
				}
			}
			if op == "append" && strings.HasPrefix(why, "table has errors: ") {
				tally.nonconformant++
			}
			seen[key] = true
			tally.reasons[key]++
		}
		ok := true
		c := change{path: tb.Path, updates: []cellUpdate{}}
		// Append: rows [0, k) back through the CSV view, k within the room
		// the columns' maximum extents leave; with no room at all, one
		// row, which must be refused.
		room := roomFor(t, f, tb)
		k := min(tb.NRows, 1+int64(seed)%5, max(room, 1))
		view := fusetest.WholeTable(mp, tb.Path, "csv")
		text, err := os.ReadFile(view)
		if err != nil {
			t.Errorf("%s: %v", view, err)
			continue
		}
		lines, err := headLines(text, int(k)+1) // the header, then k rows
		if err != nil {
			t.Errorf("%s: %v", view, err)
			continue
		}
		at := logs.count()
		switch err := fusetest.Append(view, lines); {
		case err != nil:
			refuse("append", err, at)
			ok = room <= 0
		case room <= 0:
			t.Errorf("%s: appending %d rows past every column's maximum extent succeeded", tb.Path, k)
			c.k = k
		default:
			c.k = k
			tally.appended++
		}
		n := tb.NRows + c.k
		// Truncate by j rows through the first fixed-width column's .raw
		// (sometimes into the rows that were there before).
		var raws []randColumn
		for _, col := range tb.Columns {
			if col.RawSHA256 != "" && col.ElemSize > 0 {
				raws = append(raws, col)
			}
		}
		if len(raws) == 0 {
			t.Logf("%s: no fixed-width column: not truncated or updated", tb.Path)
			tally.reasons["truncate, update: no fixed-width column (no .raw file)"]++
			changes = append(changes, c)
			continue
		}
		rawPath := func(col randColumn) string {
			return filepath.Join(fusetest.MountPath(mp, tb.Path), fsnodeName(col.Name)) + ".raw"
		}
		j := min(n, 1+int64(seed)%(c.k+2))
		at = logs.count()
		if err := os.Truncate(rawPath(raws[0]), (n-j)*raws[0].ElemSize); err != nil {
			refuse("truncate", err, at)
			ok = false
		} else {
			c.j = j
			tally.truncated++
		}
		n -= c.j
		// Update: row u of every fixed-width column gets row src's element,
		// read from and written to the column's .raw (both rows were there
		// before the append).
		if m := min(n, tb.NRows); m > 0 {
			u := int64(seed) % m
			src := (u + 1) % m
			updated := 0
			for _, col := range raws {
				p := rawPath(col)
				at := logs.count()
				if err := pwriteCell(p, col.ElemSize, u, src); err != nil {
					refuse("update", err, at)
					tally.cellsRefused++
					continue
				}
				updated++
				c.updates = append(c.updates, cellUpdate{col.Name, u, src})
			}
			tally.cells += updated
			if updated > 0 {
				tally.updated++
			}
			if updated < len(raws) {
				ok = false
			}
		}
		if ok {
			tally.mutated++
		}
		changes = append(changes, c)
	}
	unmount()
	defer func() {
		if t.Failed() {
			t.Logf("the mount logged:\n%s", strings.Join(logs.lines, "\n"))
		}
	}()
	if err := crashtest.H5dump(name); err != nil {
		t.Error(err)
	}
	if err := crashtest.H5ls(name); err != nil {
		t.Error(err)
	}
	if ub := f.UserBlockSize(); ub > 0 {
		now, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(now[:ub], b[:ub]) {
			t.Errorf("the %d-byte user block changed", ub)
		}
		t.Logf("user block of %d bytes kept", ub)
	}
	for _, c := range changes {
		upd, err := json.Marshal(c.updates)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(python, "testdata/check_mutated.py", orig, name, c.path, fmt.Sprint(c.k), fmt.Sprint(c.j), string(upd)).CombinedOutput()
		if err != nil {
			t.Errorf("%s: appended %d rows, truncated %d, updated %s: check_mutated.py: %v\n%s", c.path, c.k, c.j, upd, err, out)
		}
		if c.k == 0 && c.j == 0 && len(c.updates) == 0 {
			continue
		}
		cmd := exec.Command(python, "check_write.py", name, c.path)
		cmd.Dir = fusetest.OwnCorpus
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: check_write.py (indexes recomputed from scratch): %v\n%s", c.path, err, out)
		}
	}
	return tally
}

// pwriteCell copies element src of the .raw file at p over element u,
// in one pwrite, and closes the file (where the mount commits).
func pwriteCell(p string, size, u, src int64) error {
	fh, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	e := make([]byte, size)
	if _, err := fh.ReadAt(e, src*size); err != nil {
		fh.Close()
		return err
	}
	if _, err := fh.WriteAt(e, u*size); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
