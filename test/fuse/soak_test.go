package fuse_test

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// soakReaders is the number of parallel readers of the soak test.
const soakReaders = 8

// soakSecondsEnv sets the soak test's duration in seconds (default 60).
const soakSecondsEnv = "H5FS_SOAK_SECONDS"

// pySoak is a soak reader's Python side: for each path on stdin it loads
// the file with numpy (.npy, .raw) or pandas (.csv) and prints a line
// that summarizes what it read, or "error: ..." .
const pySoak = `
import hashlib, sys
import numpy as np, pandas as pd
for line in sys.stdin:
    p = line.rstrip("\n")
    try:
        if p.endswith(".npy"):
            a = np.load(p)
            r = "%s %s %s" % (a.dtype, a.shape, hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest())
        elif p.endswith(".raw"):
            a = np.fromfile(p, dtype=np.uint8)
            r = "%d %s" % (len(a), hashlib.sha256(a.tobytes()).hexdigest())
        else:
            df = pd.read_csv(p, keep_default_na=False, dtype=str)
            r = "%s %s" % (df.shape, hashlib.sha256(df.to_csv().encode()).hexdigest())
    except Exception as e:
        r = "error: " + repr(e).replace("\n", " ")
    print(r, flush=True)
`

// TestSoak mounts a directory of corpus files (tables, ordinary and
// sparse datasets) with the h5fs binary and has 8 readers go over every
// view again and again for H5FS_SOAK_SECONDS (default 60): each reads
// every file whole (as cat does) and loads the .npy and .raw files with
// numpy and the .csv files with pandas, each reader starting at another
// file. Every read must succeed and give what the first read of that file
// gave; the mount's resident memory, sampled all along, must not grow
// past what it was during the first pass (with some slack for the Go
// collector's timing).
func TestSoak(t *testing.T) {
	secs := 60
	if s := os.Getenv(soakSecondsEnv); s != "" {
		var err error
		if secs, err = strconv.Atoi(s); err != nil || secs <= 0 {
			t.Fatalf("%s=%q: want a number of seconds", soakSecondsEnv, s)
		}
	}
	bin := h5fsBinary(t)
	dir := t.TempDir()
	for _, src := range []string{
		filepath.Join(fusetest.OwnCorpus, "hep_tables.h5"),
		"../../arrowexport/testdata/datasets.h5",
		"../../sparsecoo/testdata/sparse_2d_float64_ea.h5",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mp := t.TempDir()
	mount := exec.Command(bin, "mount", "-f", dir, mp)
	mount.Stderr = os.Stderr
	if err := mount.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mp, 0); err != nil {
			t.Errorf("unmount %s: %v", mp, err)
		}
		mount.Wait()
	})
	files := soakFiles(t, mp)

	var (
		mu       sync.Mutex
		first    = map[string]string{} // what the first read of a key gave
		failures []string
	)
	check := func(key, got string) {
		mu.Lock()
		defer mu.Unlock()
		if strings.HasPrefix(got, "error") {
			failures = append(failures, key+": "+got)
		} else if want, ok := first[key]; !ok {
			first[key] = got
		} else if got != want {
			failures = append(failures, fmt.Sprintf("%s: read %q, first read %q", key, got, want))
		}
	}
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	var passes sync.WaitGroup // each reader's first pass
	passes.Add(soakReaders)
	var readers sync.WaitGroup
	counts := make([]int, soakReaders)
	for r := range soakReaders {
		readers.Add(1)
		go func() {
			defer readers.Done()
			py := startPySoak(t)
			defer py.close()
			for n := 0; ; n++ {
				if n == len(files) {
					passes.Done()
				}
				if n >= len(files) && time.Now().After(deadline) {
					break
				}
				f := files[(r*len(files)/soakReaders+n)%len(files)]
				check("cat "+f, catHash(f))
				if strings.HasSuffix(f, ".npy") || strings.HasSuffix(f, ".raw") || strings.HasSuffix(f, ".csv") {
					check("python "+f, py.read(f))
				}
				counts[r]++
			}
		}()
	}

	// resident memory of the mount: the highest of the first pass, then
	// every later sample
	firstDone := make(chan struct{})
	go func() { passes.Wait(); close(firstDone) }()
	readersDone := make(chan struct{})
	go func() { readers.Wait(); close(readersDone) }()
	var base, peak int64
	inFirst := true
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-firstDone:
			inFirst, firstDone = false, nil
		case <-readersDone:
			done = true
		case <-tick.C:
		}
		rss := vmRSS(t, mount.Process.Pid)
		if inFirst {
			base = max(base, rss)
		} else {
			peak = max(peak, rss)
		}
	}
	t.Logf("%d files, reads per reader %v; mount RSS: first pass %d MiB, afterwards up to %d MiB", len(files), counts, base>>20, peak>>20)
	for _, f := range failures[:min(len(failures), 20)] {
		t.Error(f)
	}
	if len(failures) > 20 {
		t.Errorf("... %d failures in all", len(failures))
	}
	if limit := base + base/4 + 32<<20; peak > limit {
		t.Errorf("mount RSS grew after the first pass: %d MiB, first pass %d MiB (limit %d MiB)", peak>>20, base>>20, limit>>20)
	}
}

// soakFiles waits for the mount at mp to be ready and returns its files
// (not .meta.json's directories' symbolic links or error files).
func soakFiles(t *testing.T, mp string) []string {
	t.Helper()
	for i := 0; ; i++ {
		if es, err := os.ReadDir(mp); err == nil && len(es) > 0 {
			break
		}
		if i == 300 {
			t.Fatalf("mount at %s not ready after 30 s", mp)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var files []string
	err := filepath.WalkDir(mp, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("%s shows %d files, want the corpus's views", mp, len(files))
	}
	return files
}

// catHash reads the file p whole and returns its size and SHA-256, or the
// error.
func catHash(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return "error: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%d %x", n, h.Sum(nil))
}

// vmRSS is the resident memory of process pid in bytes.
func vmRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("/proc/%d/status has no VmRSS", pid)
	return 0
}

// pySoakProc is a running pySoak.
type pySoakProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startPySoak(t *testing.T) *pySoakProc {
	cmd := exec.Command(python, "-c", pySoak)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Error(err)
		return nil
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Error(err)
		return nil
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return nil
	}
	return &pySoakProc{cmd: cmd, in: in, out: bufio.NewReader(out)}
}

// read has the Python side load the file p and returns its summary.
func (p *pySoakProc) read(path string) string {
	if p == nil {
		return "error: no python"
	}
	if _, err := fmt.Fprintln(p.in, path); err != nil {
		return "error: " + err.Error()
	}
	l, err := p.out.ReadString('\n')
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimSuffix(l, "\n")
}

func (p *pySoakProc) close() {
	if p != nil {
		p.in.Close()
		p.cmd.Wait()
	}
}
