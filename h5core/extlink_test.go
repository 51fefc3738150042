package h5core

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExternalLinks follows the external links of gen_extlinks.py's files
// (relative, in a subfolder, absolute, moved absolute, through
// HDF5_EXT_PREFIX, chains back into the first file, soft links inside the
// target file) and compares every value with what libhdf5 (h5py) reads; a
// missing target and a cycle are errors on their link only.
func TestExternalLinks(t *testing.T) {
	dir := t.TempDir()
	var want map[string]struct {
		Raw   *string `json:"raw"`
		Error string  `json:"error"`
	}
	runH5pyGen(t, "gen_extlinks.py", dir, &want)
	t.Setenv(ExtPrefixEnv, filepath.Join(dir, "prefixed"))
	f, err := Open(filepath.Join(dir, "master.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for path, w := range want {
		t.Run(path, func(t *testing.T) {
			o, err := f.Open(path)
			if w.Raw == nil {
				if err == nil {
					t.Fatalf("opened; libhdf5 fails: %s", w.Error)
				}
				t.Logf("%v (libhdf5: %s)", err, w.Error)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Path != path {
				t.Errorf("Path %q, want %q", o.Path, path)
			}
			ds, err := o.Dataset()
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(readAll(t, ds)); got != *w.Raw {
				t.Errorf("data %s, libhdf5 %s", got, *w.Raw)
			}
		})
	}
	// OpenLink follows too, and the missing file's error says what was looked for
	root, err := f.Root()
	if err != nil {
		t.Fatal(err)
	}
	for name, wantErr := range map[string]string{"data": "", "sub": "", "missing": "nothere.h5 not found"} {
		l, err := root.Link(name)
		if err != nil {
			t.Fatal(err)
		}
		o, err := root.OpenLink(l)
		switch {
		case wantErr == "" && err != nil:
			t.Errorf("OpenLink(%s): %v", name, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr) || !errors.Is(err, os.ErrNotExist)):
			t.Errorf("OpenLink(%s): %v, want an error saying %q", name, err, wantErr)
		case wantErr == "" && o.Path != "/"+name:
			t.Errorf("OpenLink(%s): Path %q", name, o.Path)
		}
	}
}

// FuzzExternalLinkResolution opens arbitrary paths of gen_extlinks.py's
// master.h5 (external links relative, absolute, through the prefix, in
// chains and cycles) under an arbitrary HDF5_EXT_PREFIX: nothing may panic
// or hang, no lookup may open more files than the bound, and a path that
// opens must name what it opened.
func FuzzExternalLinkResolution(f *testing.F) {
	dir := f.TempDir()
	var want map[string]json.RawMessage
	runH5pyGen(f, "gen_extlinks.py", dir, &want)
	for path := range want {
		f.Add(path, filepath.Join(dir, "prefixed"))
	}
	f.Add("/chain/x/../y", "${ORIGIN}:${ORIGIN}/sub::/nonexistent")
	f.Add("/loop/loop", "")
	f.Fuzz(func(t *testing.T, path, prefix string) {
		if strings.ContainsRune(prefix, 0) {
			return // no environment variable holds a NUL
		}
		t.Setenv(ExtPrefixEnv, prefix)
		h, err := Open(filepath.Join(dir, "master.h5"))
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		o, err := h.Open(path)
		if n := len(h.ext.files); n > maxExternalFiles {
			t.Fatalf("%d files opened", n)
		}
		if err == nil && o.Path == "" {
			t.Fatalf("%q opened an object without a path", path)
		}
	})
}
