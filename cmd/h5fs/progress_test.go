package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckProgress runs `h5fs check --verify-indexes` on a terminal (a
// pseudo-terminal from util-linux's script) and on a pipe: a progress bar
// on the first, nothing on stderr on the second.
func TestCheckProgress(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "h5fs")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	file := "../../table/testdata/hep_tables.h5"
	out, err := exec.Command("script", "-qec", bin+" check --verify-indexes "+file, "/dev/null").CombinedOutput()
	if err != nil && !strings.Contains(string(out), "tables,") {
		t.Fatalf("script (package bsdutils): %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "0/503") || !strings.Contains(string(out), "rows") {
		t.Errorf("check on a terminal shows no progress bar:\n%q", out)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "check", "--verify-indexes", file)
	cmd.Stderr = &stderr
	stdout, _ := cmd.Output()
	if stderr.Len() != 0 || !strings.Contains(string(stdout), "4 tables,") {
		t.Errorf("check on a pipe: stderr %q (want none), stdout %q", stderr.String(), stdout)
	}
}
