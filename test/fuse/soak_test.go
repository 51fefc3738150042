package fuse_test

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// soakReaders is the number of parallel readers of the soak tests.
const soakReaders = 8

// soakCorpus is what the soak tests mount: tables, ordinary datasets of
// every kind, a sparse dataset.
var soakCorpus = []string{
	filepath.Join(fusetest.OwnCorpus, "hep_tables.h5"),
	"../../arrowexport/testdata/datasets.h5",
	"../../sparsecoo/testdata/sparse_2d_float64_ea.h5",
}

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

// TestSoak mounts a directory of corpus files with the h5fs binary and
// has 8 readers go over every view for H5FS_SOAK_SECONDS (default 60)
// (fusetest.Soak): each reads every file whole (as cat does) and loads
// the .npy and .raw files with numpy and the .csv files with pandas.
func TestSoak(t *testing.T) {
	_, pid, files := fusetest.SoakMount(t, soakCorpus)
	if len(files) < 50 {
		t.Fatalf("the mount shows %d files, want the corpus's views", len(files))
	}
	fusetest.Soak(t, pid, files, soakReaders, func() (fusetest.SoakReader, func()) {
		py := startPySoak(t)
		return func(f string) map[string]string {
			found := map[string]string{"cat": catHash(f)}
			if strings.HasSuffix(f, ".npy") || strings.HasSuffix(f, ".raw") || strings.HasSuffix(f, ".csv") {
				found["python"] = py.read(f)
			}
			return found
		}, py.close
	})
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
