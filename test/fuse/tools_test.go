package fuse_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// run runs a command and returns its standard output.
func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// TestCoreutils runs ls -lR, head, tail, wc -l, cp and getfattr -d on the
// mounts of the fixtures with tables, and compares with what Go reads.
func TestCoreutils(t *testing.T) {
	for _, tool := range []string{"ls", "head", "tail", "wc", "cp", "getfattr"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (package attr for getfattr)", tool)
		}
	}
	for _, name := range fusetest.FixtureFiles(t) {
		exp, ok := fusetest.LoadExpected(t, name)
		if !ok || len(exp.Tables) == 0 {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			mp := fusetest.Mount(t, name, nil)
			ls := string(run(t, "ls", "-lR", mp))
			for _, tb := range exp.Tables {
				p := fusetest.WholeTable(mp, tb.Path, "csv")
				if !strings.Contains(ls, filepath.Base(p)) {
					t.Errorf("ls -lR does not show %s", p)
				}
				data, err := os.ReadFile(p)
				if err != nil {
					t.Errorf("%v", err)
					continue
				}
				lines := strings.SplitAfter(string(data), "\n")
				lines = lines[:len(lines)-1]
				if got, want := string(run(t, "head", "-3", p)), strings.Join(lines[:min(3, len(lines))], ""); got != want {
					t.Errorf("head -3 %s = %q, want %q", p, got, want)
				}
				if got, want := string(run(t, "tail", "-3", p)), strings.Join(lines[max(0, len(lines)-3):], ""); got != want {
					t.Errorf("tail -3 %s = %q, want %q", p, got, want)
				}
				if got, want := strings.TrimSpace(string(run(t, "wc", "-l", p))), fmt.Sprintf("%d %s", len(lines), p); got != want {
					t.Errorf("wc -l = %q, want %q", got, want)
				}
				cp := filepath.Join(t.TempDir(), "copy.csv")
				run(t, "cp", p, cp)
				if got, err := os.ReadFile(cp); err != nil || !bytes.Equal(got, data) {
					t.Errorf("cp %s: copy differs (%v)", p, err)
				}
				attrs := string(run(t, "getfattr", "-d", fusetest.MountPath(mp, tb.Path)))
				if exp.Kind == "hep001" && !strings.Contains(attrs, `user.CLASS="COLUMN_TABLE"`) {
					t.Errorf("getfattr -d %s: no user.CLASS:\n%s", tb.Path, attrs)
				}
				checkXattrErrors(t, p)
			}
		})
	}
}

// checkXattrErrors checks the errors of extended attributes that are not
// there: ENODATA for a user. name, ENOTSUP for the namespaces h5fs does
// not have (which lets ls -l stop asking for SELinux labels and ACLs).
func checkXattrErrors(t *testing.T, p string) {
	t.Helper()
	buf := make([]byte, 256)
	for name, want := range map[string]error{
		"user.no such attribute":  syscall.ENODATA,
		"security.selinux":        syscall.ENOTSUP,
		"system.posix_acl_access": syscall.ENOTSUP,
		"trusted.anything":        syscall.ENOTSUP,
	} {
		if _, err := syscall.Getxattr(p, name, buf); !errors.Is(err, want) {
			t.Errorf("getxattr %s %s: %v, want %v", p, name, err, want)
		}
	}
}
