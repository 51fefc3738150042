package fuse_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/h5fs/h5fs/h5core"
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
	if !indexes && n != newest {
		return n
	}
	cmd := exec.Command("/usr/bin/python3", "check_write.py", name, "/t")
	cmd.Dir = fusetest.OwnCorpus
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: check_write.py (indexes recomputed from scratch): %v\n%s", filepath.Base(name), err, out)
	}
	return n
}

// TestWriteKill streams appends to t.csv through `h5fs mount -f -o rw`
// and kills the daemon with SIGKILL after a random delay, several times.
// libhdf5 opens the file left behind before any recovery (the commit
// order) and after `h5fs check` rolled back a hot journal (saying so on
// stderr); both times NROWS is a count some append committed or was
// committing and the rows are the stream's; §12 holds after recovery
// and, before it, whenever NROWS is the new count.
func TestWriteKill(t *testing.T) {
	bin := h5fsBinary(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(8, seed))
	hot := 0
	const rounds = 4
	for round := range rounds {
		dir := t.TempDir()
		name := filepath.Join(dir, "write.h5")
		src, err := os.ReadFile(filepath.Join(fusetest.OwnCorpus, "write.h5"))
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
		daemon := exec.Command(bin, "mount", "-f", "-o", "rw", name, mp)
		daemon.Stderr = &logb
		if err := daemon.Start(); err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			if ok, _ := mounted(mp); ok {
				break
			}
			if i == 600 {
				daemon.Process.Kill()
				t.Fatalf("h5fs mount -f -o rw did not mount: %s", logb.String())
			}
			time.Sleep(50 * time.Millisecond)
		}

		// The appender: batches of 20–300 rows, one commit each (at close).
		var mu sync.Mutex
		done, inflight := 40, 40
		batches := rand.New(rand.NewPCG(uint64(round), seed))
		first := make(chan struct{})
		stopped := make(chan error, 1)
		go func() {
			csv := filepath.Join(mp, "t.csv")
			for i := 0; ; i++ {
				mu.Lock()
				k := 20 + batches.IntN(280)
				from := done - 40
				inflight = done + k
				mu.Unlock()
				if err := fusetest.Append(csv, writeRows(from, from+k)); err != nil {
					stopped <- err
					return
				}
				mu.Lock()
				done += k
				mu.Unlock()
				if i == 0 {
					close(first)
				}
			}
		}()
		select {
		case <-first:
		case err := <-stopped:
			daemon.Process.Kill()
			t.Fatalf("round %d: first append failed: %v\n%s", round, err, logb.String())
		}
		time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
		daemon.Process.Kill()
		daemon.Wait()
		<-stopped // the dead mount fails the appender's next call
		if err := exec.Command("umount", "-l", mp).Run(); err != nil {
			t.Errorf("umount -l %s: %v", mp, err)
		}
		mu.Lock()
		allowed := map[int]bool{done: true, inflight: true}
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
		// An index entry of the chunk the old last row shares with the
		// new ones is updated in place before NROWS: only the journal
		// restores it, so as left the indexes are checked under the new
		// NROWS only.
		nLeft := checkStreamPrefix(t, asLeft, allowed, inflight, false)

		var stderr bytes.Buffer
		check := exec.Command(bin, "check", name)
		check.Stderr = &stderr
		if out, err := check.Output(); err != nil {
			t.Fatalf("round %d: h5fs check after kill -9: %v\n%s%s", round, err, out, stderr.String())
		}
		if _, err := os.Stat(h5core.JournalPath(name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("round %d: journal left after h5fs check: %v", round, err)
		}
		after, _ := os.ReadFile(name)
		rolled := !bytes.Equal(after, raw)
		if said := strings.Contains(stderr.String(), "rolled back an interrupted write"); said != rolled {
			t.Errorf("round %d: h5fs check changed the file: %v, said it rolled back: %v (stderr %q)", round, rolled, said, stderr.String())
		}
		if rolled {
			hot++
			if jerr != nil {
				t.Errorf("round %d: file rolled back without a journal", round)
			}
		}
		n := checkStreamPrefix(t, name, allowed, inflight, true)
		t.Logf("round %d: killed with %d rows committed (%d in flight): NROWS %d as left, %d after h5fs check (rolled back: %v)",
			round, done, inflight, nLeft, n, rolled)
		if !rolled && n != nLeft {
			t.Errorf("round %d: NROWS %d as left, %d after a check that rolled nothing back", round, nLeft, n)
		}
	}
	t.Logf("%d of %d kills left a hot journal", hot, rounds)
}
