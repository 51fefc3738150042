package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCatExternalLinks: views below external links read the target file's
// objects (a dataset and a group in a subfolder, written by h5py through
// h5core/testdata/gen_extlinks.py), and .raw bytes are the target's.
func TestCatExternalLinks(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	if out, err := exec.Command("/usr/bin/python3", "../../h5core/testdata/gen_extlinks.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("gen_extlinks.py (needs Debian's python3-h5py, installed by scripts/test.sh): %v\n%s", err, out)
	}
	master := filepath.Join(dir, "master.h5")
	tests := []struct{ view, want string }{
		{"sub/v.csv", "v\n7\n8\n9\n"},
		{"local.raw", "\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff\xff\xff\xff\xff"},
		{"chain.raw", "\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff\xff\xff\xff\xff"},
		{"data.raw", string([]byte{0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0, 9, 0, 10, 0, 11, 0,
			12, 0, 13, 0, 14, 0, 15, 0, 16, 0, 17, 0, 18, 0, 19, 0, 20, 0, 21, 0, 22, 0, 23, 0})},
	}
	for _, tc := range tests {
		var got bytes.Buffer
		if err := runCat([]string{master, tc.view}, &got); err != nil {
			t.Errorf("%s: %v", tc.view, err)
			continue
		}
		if got.String() != tc.want {
			t.Errorf("%s: %q, want %q", tc.view, got.String(), tc.want)
		}
	}
}
