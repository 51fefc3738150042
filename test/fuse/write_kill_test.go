package fuse_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/internal/sparsetest"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// writeRows returns the CSV lines of write.h5's table (x, e, k, tag) for
// the appended rows numbered [from, to): row seq has x = seq, so a reader
// can tell which rows of the stream a file holds.
func writeRows(from, to int) []byte {
	var b bytes.Buffer
	for s := from; s < to; s++ {
		fmt.Fprintf(&b, "%d,%g,%d,n%d\n", s, float64(s)*0.25, s%7, s%40)
	}
	return b.Bytes()
}

// checkStreamPrefix checks with h5py (libhdf5) that the table /t of
// write.h5 after appends of writeRows holds NROWS equal to one of
// allowed, its first 40 rows untouched and rows 40.. the stream's
// first rows, and, when indexes is set or NROWS is newest, with
// check_write.py that every search index matches one recomputed from
// scratch (§12). It returns NROWS.
func checkStreamPrefix(t *testing.T, name string, allowed map[int]bool, newest int, indexes bool) int {
	t.Helper()
	py := `import h5py, sys
g = h5py.File(sys.argv[1], "r")["t"]
n = int(g.attrs["NROWS"])
x = g["x"][40:n].tolist()
bad = [i for i, v in enumerate(x) if v != i]
print(n, bad[:1])`
	out, err := exec.Command("/usr/bin/python3", "-c", py, name).CombinedOutput()
	if err != nil {
		t.Fatalf("h5py cannot read %s: %v\n%s", name, err, out)
	}
	var n int
	var bad string
	if _, err := fmt.Sscanf(string(out), "%d %s", &n, &bad); err != nil {
		t.Fatalf("h5py printed %q", out)
	}
	if !allowed[n] {
		t.Errorf("%s: NROWS = %d, not one of the committed counts %v", filepath.Base(name), n, allowed)
	}
	if bad != "[]" {
		t.Errorf("%s: row x[40+i] != i first at i = %s", filepath.Base(name), bad)
	}
	if indexes || n == newest {
		checkIndexes(t, name)
	}
	return n
}

// checkIndexes runs check_write.py: every search index of /t matches one
// recomputed from scratch, and SEARCH_INDEXES holds nothing unreferenced.
func checkIndexes(t *testing.T, name string) {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", "check_write.py", name, "/t")
	cmd.Dir = fusetest.OwnCorpus
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: check_write.py (indexes recomputed from scratch): %v\n%s", filepath.Base(name), err, out)
	}
}

// killWorkload is a stream of writes TestWriteKill sends through a
// read-write mount of a copy of one of OwnCorpus's files until it kills
// the daemon.
type killWorkload struct {
	fixture string
	dir     string // where fixture is; "" for fusetest.OwnCorpus
	// step makes write number i through the mount at mp; it returns once
	// the mount committed it (at close) or with the error that stopped it.
	step func(mp string, i int) error
	// early: the kill does not wait for the first write to complete and
	// a random delay after it; inCommit: it waits for a commit's rollback
	// journal to appear, then a random delay (0–2 ms). Both: a kill
	// inside the first write's commit.
	early, inCommit bool
	// check checks the file at name with libhdf5 when done writes had
	// completed and one more may have been committing: it shows the state
	// after done or done+1 writes. recovered says whether h5fs check has
	// run (rolling back a hot journal); before, the journal may be all
	// that restores what the commit order cannot protect. It returns a
	// description of the state for the log.
	check func(t *testing.T, name string, done int, recovered bool) string
}

// TestWriteKill streams writes through `h5fs mount -f -o rw` and kills
// the daemon with SIGKILL at a random point, several times per stream:
// appends to t.csv; single-cell updates of x.raw (pwrite, each one an
// index rebuild; killed inside a commit); and appends to write_fixed.h5,
// killed inside the first one, which deletes the search indexes that
// cannot grow (§11.2); and lines appended to a sparse dataset's coo.csv
// (sparseWorkload, killed inside a commit). libhdf5 opens the
// file left behind before any recovery (the commit order) and after
// `h5fs check --verify-indexes` rolled back a hot journal (saying so on
// stderr) and found every search index consistent with its column; both
// times the file shows the state after the writes that completed or
// after the one in flight too, never a torn one.
func TestWriteKill(t *testing.T) {
	bin := h5fsBinary(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for _, tc := range []struct {
		name   string
		rounds int
		w      killWorkload
	}{
		{"append", 4, appendWorkload("write.h5", seed, false)},
		{"update", 4, updateWorkload()},
		{"append_drop_index", 6, appendWorkload("write_fixed.h5", seed, true)},
		{"sparse", 4, sparseWorkload()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(8, seed))
			hot := 0
			for round := range tc.rounds {
				if killRound(t, bin, rng, round, tc.w) {
					hot++
				}
			}
			t.Logf("%d of %d kills left a hot journal", hot, tc.rounds)
		})
	}
}

// appendWorkload appends batches of 20–300 rows of writeRows to t.csv,
// one commit each. A state is NROWS: 40 and the rows of the batches
// committed; every search index consistent after recovery and, before
// it, whenever NROWS is the newest count (an index entry of the chunk
// the old last row shares with the new ones is updated in place before
// NROWS: only the journal restores it).
func appendWorkload(fixture string, seed uint64, early bool) killWorkload {
	var mu sync.Mutex
	var rng *rand.Rand
	rows := []int{40} // rows after i batches
	return killWorkload{
		fixture:  fixture,
		early:    early,
		inCommit: early,
		step: func(mp string, i int) error {
			mu.Lock()
			if i == 0 {
				rng = rand.New(rand.NewPCG(uint64(len(fixture)), seed))
				rows = rows[:1]
			}
			from := rows[i]
			k := 20 + rng.IntN(280)
			rows = append(rows, from+k)
			mu.Unlock()
			return fusetest.Append(filepath.Join(mp, "t.csv"), writeRows(from-40, from-40+k))
		},
		check: func(t *testing.T, name string, done int, recovered bool) string {
			mu.Lock()
			allowed := map[int]bool{rows[done]: true, rows[min(done+1, len(rows)-1)]: true}
			newest := rows[len(rows)-1]
			mu.Unlock()
			return fmt.Sprintf("NROWS %d", checkStreamPrefix(t, name, allowed, newest, recovered))
		},
	}
}

// updateWorkload rewrites one cell of x per write, by a pwrite of one
// element into x.raw: write i sets row (7i mod 40) to 5000+i. A state is
// x as after the writes completed, or after one more; every search index
// of x (CHUNK_MINMAX, CHUNK_BLOOM, SORTED_ROWS) consistent after
// recovery.
func updateWorkload() killWorkload {
	row := func(i int) int { return 7 * i % 40 }
	return killWorkload{
		fixture:  "write.h5",
		inCommit: true,
		step: func(mp string, i int) error {
			fh, err := os.OpenFile(filepath.Join(mp, "t", "x.raw"), os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, werr := fh.WriteAt(binary.LittleEndian.AppendUint32(nil, uint32(5000+i)), int64(row(i))*4)
			return errors.Join(werr, fh.Close())
		},
		check: func(t *testing.T, name string, done int, recovered bool) string {
			py := `import h5py, sys
g = h5py.File(sys.argv[1], "r")["t"]
print(int(g.attrs["NROWS"]), *g["x"][:40].tolist())`
			out, err := exec.Command("/usr/bin/python3", "-c", py, name).CombinedOutput()
			if err != nil {
				t.Fatalf("h5py cannot read %s: %v\n%s", name, err, out)
			}
			var got []int
			for _, f := range strings.Fields(string(out)) {
				var v int
				if _, err := fmt.Sscan(f, &v); err != nil {
					t.Fatalf("h5py printed %q", out)
				}
				got = append(got, v)
			}
			if got[0] != 40 {
				t.Errorf("%s: NROWS = %d, want 40", filepath.Base(name), got[0])
			}
			want := func(n int) []int { // x after n writes, from x as generated
				x := slices.Clone(writeX)
				for i := range n {
					x[row(i)] = 5000 + i
				}
				return x
			}
			state := ""
			switch {
			case slices.Equal(got[1:], want(done)):
				state = fmt.Sprintf("x after %d updates", done)
			case slices.Equal(got[1:], want(done+1)):
				state = fmt.Sprintf("x after %d updates (the one in flight)", done+1)
			default:
				t.Errorf("%s: x = %v, neither after %d updates %v nor after %d", filepath.Base(name), got[1:], done, want(done), done+1)
			}
			if recovered {
				checkIndexes(t, name)
			}
			return state
		},
	}
}

// sparseKill is the sparse dataset sparseWorkload writes: 23 x 16
// int32 elements in filtered 4 x 4 chunks (a commit moves every chunk
// it rewrites) indexed by a fixed array.
const (
	sparseKillFile = "sparse_2d_int32_fa.h5"
	sparseKillName = "int32_fa_filtered"
)

// sparseBatch returns the lines of coo.csv write i of sparseWorkload:
// a few elements defined (value 1000i+j) and, every third write, one
// erased, no element twice.
func sparseBatch(i int) [][3]int {
	var out [][3]int
	seen := map[[2]int]bool{}
	add := func(r, c, v int) {
		if !seen[[2]int{r, c}] {
			seen[[2]int{r, c}] = true
			out = append(out, [3]int{r, c, v})
		}
	}
	for j := range 3 + i%5 {
		add((i*5+j*7)%23, (i*3+j*11)%16, 1000*i+j)
	}
	if i%3 == 2 {
		add((i*2)%23, (i*5)%16, -1) // -1: erase
	}
	return out
}

// sparseWorkload appends batches of sparseBatch to a sparse dataset's
// coo.csv, one commit each (killed inside a commit). A state is the
// fixture's elements with the batches committed applied, read by the
// independent decoder; after recovery it is the state after the writes
// completed or after the one in flight; before recovery libhdf5 must
// list the file as it listed the fixture, and a torn state is allowed
// (index entries are rewritten in place; the journal restores them).
func sparseWorkload() killWorkload {
	dir := filepath.Join("..", "..", "sparsecoo", "testdata")
	var once sync.Once
	var base map[[2]int]int
	var listing map[string]string
	model := func(t *testing.T, n int) map[[2]int]int {
		once.Do(func() {
			p := filepath.Join(dir, sparseKillFile)
			dec, err := sparsetest.Decode(p, "/"+sparseKillName, "<i4")
			if err != nil {
				t.Fatal(err)
			}
			base = map[[2]int]int{}
			for _, e := range dec.COO {
				base[[2]int{int(e[0]), int(e[1])}] = int(e[2])
			}
			l, err := sparsetest.Libhdf5Listing(p)
			if err != nil {
				t.Fatal(err)
			}
			listing = l[p]
		})
		m := maps.Clone(base)
		for i := range n {
			for _, e := range sparseBatch(i) {
				if e[2] == -1 {
					delete(m, [2]int{e[0], e[1]})
				} else {
					m[[2]int{e[0], e[1]}] = e[2]
				}
			}
		}
		return m
	}
	return killWorkload{
		fixture:  sparseKillFile,
		dir:      dir,
		inCommit: true,
		step: func(mp string, i int) error {
			var b bytes.Buffer
			for _, e := range sparseBatch(i) {
				if e[2] == -1 {
					fmt.Fprintf(&b, "%d,%d,\n", e[0], e[1])
				} else {
					fmt.Fprintf(&b, "%d,%d,%d\n", e[0], e[1], e[2])
				}
			}
			return fusetest.Append(filepath.Join(mp, sparseKillName, "coo.csv"), b.Bytes())
		},
		check: func(t *testing.T, name string, done int, recovered bool) string {
			m0, m1 := model(t, done), model(t, done+1)
			if !recovered {
				l, err := sparsetest.Libhdf5Listing(name)
				if err != nil {
					t.Fatal(err)
				}
				if err := sparsetest.SameListing(listing, l[name]); err != nil {
					t.Errorf("%s before recovery: %v", filepath.Base(name), err)
				}
			}
			dec, err := sparsetest.Decode(name, "/"+sparseKillName, "<i4")
			if err != nil {
				if recovered {
					t.Errorf("%s: the independent decoder: %v", filepath.Base(name), err)
				}
				return "undecodable"
			}
			got := map[[2]int]int{}
			for _, e := range dec.COO {
				got[[2]int{int(e[0]), int(e[1])}] = int(e[2])
			}
			switch {
			case maps.Equal(got, m0):
				return fmt.Sprintf("elements after %d writes", done)
			case maps.Equal(got, m1):
				return fmt.Sprintf("elements after %d writes (the one in flight)", done+1)
			case recovered:
				t.Errorf("%s: %d elements, neither those after %d writes (%d) nor after %d (%d)", filepath.Base(name), len(got), done, len(m0), done+1, len(m1))
			}
			return "torn"
		},
	}
}

// writeX is column x of write.h5 as generated (read once, by h5py).
var writeX []int

func loadWriteX(t *testing.T) {
	if writeX != nil {
		return
	}
	py := `import h5py, sys
print(*h5py.File(sys.argv[1], "r")["t/x"][:40].tolist())`
	out, err := exec.Command("/usr/bin/python3", "-c", py, filepath.Join(fusetest.OwnCorpus, "write.h5")).CombinedOutput()
	if err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	for _, f := range strings.Fields(string(out)) {
		var v int
		if _, err := fmt.Sscan(f, &v); err != nil {
			t.Fatalf("h5py printed %q", out)
		}
		writeX = append(writeX, v)
	}
}

// killRound mounts a fresh copy of w's fixture with `h5fs mount -f -o
// rw`, streams w's writes, kills the daemon with SIGKILL after a random
// delay, checks the file as left and after `h5fs check
// --verify-indexes`, and reports whether a hot journal was rolled back.
func killRound(t *testing.T, bin string, rng *rand.Rand, round int, w killWorkload) bool {
	t.Helper()
	loadWriteX(t)
	dir := t.TempDir()
	name := filepath.Join(dir, w.fixture)
	corpus := w.dir
	if corpus == "" {
		corpus = fusetest.OwnCorpus
	}
	src, err := os.ReadFile(filepath.Join(corpus, w.fixture))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mp, 0o755); err != nil {
		t.Fatal(err)
	}
	cleanupMount(t, mp)
	var logb bytes.Buffer
	daemon := fusetest.StartDaemon(t, bin, []string{"-o", "rw"}, name, mp, &logb)

	// The writer: one write after the other, each committed at its close.
	var mu sync.Mutex
	done := 0
	first := make(chan struct{})
	stopped := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			if err := w.step(mp, i); err != nil {
				stopped <- err
				return
			}
			mu.Lock()
			done++
			mu.Unlock()
			if i == 0 {
				close(first)
			}
		}
	}()
	if !w.early {
		select {
		case <-first:
		case err := <-stopped:
			daemon.Process.Kill()
			t.Fatalf("round %d: first write failed: %v\n%s", round, err, logb.String())
		}
		time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
	}
	if w.inCommit {
		// Kill inside a commit: a random delay after its rollback
		// journal turned hot, if it is still hot then (else at a later
		// commit; after 10 s of trying, wherever it is). The journal
		// file stays between commits, its header wiped: only a hot
		// header tells a commit under way.
		delay := time.Duration(rng.IntN(1000)) * time.Microsecond
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			if !h5core.JournalHot(name) {
				time.Sleep(50 * time.Microsecond)
				continue
			}
			time.Sleep(delay)
			if h5core.JournalHot(name) {
				break
			}
		}
	}
	daemon.Process.Kill()
	exited := make(chan struct{})
	go func() {
		daemon.Wait()
		close(exited)
	}()
	pid := daemon.Process.Pid
	awaitOrAbort(t, round, "the daemon to exit after SIGKILL", mp, pid, exited)
	writerDone := make(chan struct{})
	go func() {
		<-stopped // the dead mount fails the writer's next call
		close(writerDone)
	}()
	awaitOrAbort(t, round, "the writer's call on the dead mount to fail", mp, pid, writerDone)
	if err := exec.Command("umount", "-l", mp).Run(); err != nil {
		t.Errorf("umount -l %s: %v", mp, err)
	}
	mu.Lock()
	n := done
	mu.Unlock()

	// Before recovery: a copy, since libhdf5 must see the file as left.
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	asLeft := filepath.Join(dir, "as-left.h5")
	if err := os.WriteFile(asLeft, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	_, jerr := os.Stat(h5core.JournalPath(name))
	left := w.check(t, asLeft, n, false)

	var stderr bytes.Buffer
	check := exec.Command(bin, "check", "--verify-indexes", name)
	check.Stderr = &stderr
	if out, err := check.Output(); err != nil {
		t.Errorf("round %d: h5fs check --verify-indexes after kill -9: %v\n%s%s", round, err, out, stderr.String())
	}
	if _, err := os.Stat(h5core.JournalPath(name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("round %d: journal left after h5fs check: %v", round, err)
	}
	// A hot journal is rolled back and said so; the bytes may come back
	// unchanged (a kill after the journal was saved, before the overwrites).
	after, _ := os.ReadFile(name)
	changed := !bytes.Equal(after, raw)
	rolled := strings.Contains(stderr.String(), "rolled back an interrupted write")
	if changed && !rolled {
		t.Errorf("round %d: h5fs check changed the file without saying it rolled back (stderr %q)", round, stderr.String())
	}
	if rolled && jerr != nil {
		t.Errorf("round %d: h5fs check rolled back without a journal", round)
	}
	recovered := w.check(t, name, n, true)
	t.Logf("round %d: killed after %d writes completed: as left %s, after h5fs check %s (rolled back: %v, bytes changed: %v)", round, n, left, recovered, rolled, changed)
	if !changed && recovered != left {
		t.Errorf("round %d: %s as left, %s after a check that changed nothing", round, left, recovered)
	}
	return rolled
}

// killWait bounds the waits after the kill: a daemon thread in an
// uninterruptible kernel wait (a cache invalidation blocked on a page or
// inode another request holds, say) keeps the killed process, and with
// it the FUSE connection, alive, and every call on the mount then
// blocks forever; the test would hang until its timeout.
const killWait = 60 * time.Second

// awaitOrAbort waits for done; after killWait it fails the test naming
// what it waited for, with the kernel's view of the daemon (process
// state and every thread's kernel stack), and aborts the mount's FUSE
// connection (umount -f: FUSE's umount_begin aborts it), which ends the
// kernel waits, then waits for done again as long.
func awaitOrAbort(t *testing.T, round int, what, mp string, pid int, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
		return
	case <-time.After(killWait):
	}
	var diag strings.Builder
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		fmt.Fprintf(&diag, "stat: %s\n", bytes.TrimSpace(b))
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stack", pid))
	for _, p := range tasks {
		if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
			fmt.Fprintf(&diag, "%s:\n%s", p, b)
		}
	}
	out, err := exec.Command("umount", "-f", mp).CombinedOutput()
	t.Errorf("round %d: still waiting for %s after %v; umount -f %s: %v %s\n%s", round, what, killWait, mp, err, out, diag.String())
	select {
	case <-done:
	case <-time.After(killWait):
		t.Fatalf("round %d: still waiting for %s after umount -f", round, what)
	}
}
