// Package h5wasmtest runs libhdf5 2.0 (npm's h5wasm, the node package in
// test/h5wasm) from Go tests: Dump reads an HDF5 file as libhdf5 2.0 reads
// it, Write writes one (file format 2.0 by default).
//
// It never skips: when node is missing the test fails (scripts/test.sh
// installs it), and when test/h5wasm/node_modules is missing or stale it
// runs `npm ci` there first, under a file lock shared by concurrent test
// processes.
package h5wasmtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// install holds the outcome of the one setup a test process does.
var install struct {
	once sync.Once
	dir  string // test/h5wasm, absolute
	node string // the node executable
	err  error
}

// Dir returns the absolute path of test/h5wasm with its node_modules
// installed, failing t when node is missing or the install fails.
func Dir(t testing.TB) string {
	t.Helper()
	install.once.Do(func() { install.dir, install.node, install.err = setup() })
	if install.err != nil {
		t.Fatalf("h5wasmtest: %v", install.err)
	}
	return install.dir
}

// setup finds node and test/h5wasm and installs the package when needed.
func setup() (dir, node string, err error) {
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", fmt.Errorf("node not found (scripts/test.sh installs nodejs and npm): %w", err)
	}
	dir, err = packageDir()
	if err != nil {
		return "", "", err
	}
	if ok, _ := installed(dir); ok {
		return dir, node, nil
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", "", fmt.Errorf("lock %s: %w", dir, err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if ok, _ := installed(dir); ok { // another process installed it meanwhile
		return dir, node, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "", fmt.Errorf("npm not found (scripts/test.sh installs nodejs and npm): %w", err)
	}
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--prefix", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("npm ci --prefix %s: %v\n%s", dir, err, out)
	}
	if ok, why := installed(dir); !ok {
		return "", "", fmt.Errorf("npm ci --prefix %s succeeded but %s", dir, why)
	}
	return dir, node, nil
}

// packageDir walks up from the working directory to the module root that
// holds test/h5wasm/package.json.
func packageDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "test", "h5wasm")
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(p, "package.json")); err == nil {
				return p, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no test/h5wasm/package.json in %s or above", wd)
		}
	}
}

// installed reports whether dir/node_modules holds every package at the
// version package-lock.json pins, and if not, why.
func installed(dir string) (bool, string) {
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return false, err.Error()
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return false, fmt.Sprintf("package-lock.json: %v", err)
	}
	if _, ok := lock.Packages["node_modules/h5wasm"]; !ok {
		return false, "package-lock.json pins no h5wasm"
	}
	for name, p := range lock.Packages {
		if !strings.HasPrefix(name, "node_modules/") {
			continue
		}
		var got struct {
			Version string `json:"version"`
		}
		b, err = os.ReadFile(filepath.Join(dir, name, "package.json"))
		if errors.Is(err, os.ErrNotExist) {
			return false, name + " is missing"
		}
		if err != nil {
			return false, err.Error()
		}
		if err := json.Unmarshal(b, &got); err != nil {
			return false, fmt.Sprintf("%s/package.json: %v", name, err)
		}
		if p.Version == "" || got.Version != p.Version {
			return false, fmt.Sprintf("%s is version %q, package-lock.json pins %q", name, got.Version, p.Version)
		}
	}
	return true, ""
}

// Run runs node on script (a file name in test/h5wasm) with args in the
// test's working directory and returns its standard output, failing t when
// node fails.
func Run(t testing.TB, script string, args ...string) []byte {
	t.Helper()
	dir := Dir(t)
	cmd := exec.Command(install.node, append([]string{filepath.Join(dir, script)}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("h5wasmtest: node %s %s: %v\n%s", script, strings.Join(args, " "), err, stderr.String())
	}
	return out
}
