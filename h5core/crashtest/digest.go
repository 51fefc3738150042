package crashtest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

//go:embed digest.py
var digestScript []byte

// Python is the interpreter with h5py that Digest runs (Debian's, which
// scripts/test.sh provides).
var Python = "/usr/bin/python3"

// FileDigest is what libhdf5, through h5py, sees in one file: Error is
// set when it cannot open or read it.
type FileDigest struct {
	Error    string                    `json:"error"`
	Datasets map[string]DatasetDigest  `json:"datasets"`
	Attrs    map[string]map[string]any `json:"attrs"` // by object path, then name
}

// DatasetDigest is one dataset's shape and values, flattened row-major
// (JSON numbers: float64).
type DatasetDigest struct {
	Shape  []uint64 `json:"shape"`
	Values []any    `json:"values"`
}

// Digest opens every named file with h5py (libhdf5 1.10) in one Python
// process and returns what it sees, by file name. When libhdf5 crashes
// the process (a file it follows into garbage), each file is digested
// alone, and those that crash it get the signal as their Error.
func Digest(paths ...string) (map[string]FileDigest, error) {
	dir, err := os.MkdirTemp("", "h5digest")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "digest.py")
	if err := os.WriteFile(script, digestScript, 0o644); err != nil {
		return nil, err
	}
	res, err := digest(script, paths)
	var sig *signalError
	if !errors.As(err, &sig) || len(paths) == 1 {
		return res, err
	}
	res = map[string]FileDigest{}
	for _, p := range paths {
		one, err := digest(script, []string{p})
		switch {
		case errors.As(err, &sig):
			res[p] = FileDigest{Error: "libhdf5 crashed h5py: " + sig.Error()}
		case err != nil:
			return nil, err
		default:
			res[p] = one[p]
		}
	}
	return res, nil
}

// signalError is a digest process killed by a signal.
type signalError struct{ err error }

func (e *signalError) Error() string { return e.err.Error() }

// digest runs the script over paths in one process.
func digest(script string, paths []string) (map[string]FileDigest, error) {
	cmd := exec.Command(Python, append([]string{script}, paths...)...)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			if ee.ProcessState.Sys().(syscall.WaitStatus).Signaled() {
				return nil, &signalError{err}
			}
			return nil, fmt.Errorf("h5py digest: %v: %s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("h5py digest: %w", err)
	}
	res := map[string]FileDigest{}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("h5py digest output: %w", err)
	}
	return res, nil
}

// H5dump runs h5dump (libhdf5's own tool) over the whole file, data
// included, and returns its complaint if it fails.
func H5dump(path string) error {
	cmd := exec.Command("h5dump", path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("h5dump %s: %v: %s", path, err, stderr.String())
	}
	return nil
}

// H5ls runs h5ls (libhdf5's lister) over every object of the file, data
// included, and returns its complaint if it fails. h5ls exits 0 when it
// cannot read a dataset's data, so its "Unable to" lines count too.
func H5ls(path string) error {
	out, err := exec.Command("h5ls", "-r", "-d", path).CombinedOutput()
	if i := bytes.Index(out, []byte("Unable to")); err != nil || i >= 0 {
		at := max(i-200, 0)
		if i < 0 {
			at = max(len(out)-400, 0)
		}
		return fmt.Errorf("h5ls -r -d %s: %v: …%s", path, err, out[at:min(at+400, len(out))])
	}
	return nil
}
