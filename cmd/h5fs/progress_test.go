package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgress runs `h5fs check --verify-indexes` and `h5fs export` on a
// terminal (a pseudo-terminal from util-linux's script) and on a pipe: a
// progress bar on the first, nothing on stderr on the second.
func TestProgress(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "h5fs")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	file := "../../table/testdata/hep_tables.h5"
	for _, c := range []struct {
		args func(dest string) []string
		done string // on stdout at the end
	}{
		{func(string) []string { return []string{"check", "--verify-indexes", file} }, "4 tables,"},
		{func(dest string) []string { return []string{"export", file, dest} }, "rows in 1 files"},
	} {
		args := c.args(t.TempDir())
		out, err := exec.Command("script", "-qec", bin+" "+strings.Join(args, " "), "/dev/null").CombinedOutput()
		if err != nil && !strings.Contains(string(out), c.done) {
			t.Fatalf("script (package bsdutils): %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "0/503") || !strings.Contains(string(out), "rows") {
			t.Errorf("%v on a terminal shows no progress bar:\n%q", args, out)
		}
		args = c.args(t.TempDir())
		var stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &stderr
		stdout, _ := cmd.Output()
		if stderr.Len() != 0 || !strings.Contains(string(stdout), c.done) {
			t.Errorf("%v on a pipe: stderr %q (want none), stdout %q", args, stderr.String(), stdout)
		}
	}
}
