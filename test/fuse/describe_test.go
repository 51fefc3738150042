package fuse_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestDescriptions checks the one description of objects: for every
// object `h5fs ls -r --json` lists, the .meta.json files of a kernel
// mount of the same file say the same, field for field (the object of
// its parent's link, its own directory's, a sparse dataset's with its
// counts as `ls -v` gives them, and csr/'s); every directory has a
// .meta.json and every .raw view's element type is in it. h5py then
// checks the attribute and fill values ls gives (testdata/
// check_describe.py). describe.h5 (testdata/describe.py) has attributes
// of every kind h5py writes; the others are the repo's corpora.
func TestDescriptions(t *testing.T) {
	made := filepath.Join(t.TempDir(), "describe.h5")
	if out, err := exec.Command(python, "testdata/describe.py", made).CombinedOutput(); err != nil {
		t.Fatalf("describe.py: %v\n%s", err, out)
	}
	bin := fusetest.Binary(t)
	for _, c := range []struct {
		name  string
		kinds []string // the value kinds h5py must have compared
	}{
		{made, []string{"integer", "float", "string", "enum", "compound", "complex", "array", "vlen", "opaque",
			"reference", "region reference", "null dataspace", "scalar", "1-D", "2-D", "3-D", "fill value"}},
		{filepath.Join(fusetest.OwnCorpus, "hep_tables.h5"), []string{"reference", "string", "integer", "fill value"}},
		{filepath.Join(fusetest.OwnCorpus, "pandas.h5"), nil},
		{filepath.Join(fusetest.OwnCorpus, "pytables.h5"), nil},
		{filepath.Join(fusetest.OwnCorpus, "anndata.h5"), nil},
		{"../../cmd/h5fs/sample/sample.h5", nil},
		{"../../arrowexport/testdata/datasets.h5", nil},
		{"../../sparsecoo/testdata/sparse_2d_int32_fa.h5", nil},
		{"../../sparsecoo/testdata/sparse_3d_uint8_fa.h5", nil},
	} {
		t.Run(filepath.Base(c.name), func(t *testing.T) {
			ls, lsName := lsJSON(t, bin, c.name, "-r")
			verbose, _ := lsJSON(t, bin, c.name, "-r", "-v")
			mp := fusetest.Mount(t, c.name, nil)
			n := compareDescriptions(t, mp, ls, verbose)
			checkMetaEverywhere(t, mp)
			r := runPyCheck(t, "check_describe.py", "testdata/check_describe.py", c.name, lsName)
			for _, k := range c.kinds {
				if !strings.Contains(" "+strings.Join(r.Kinds, " , ")+" ", " "+k+" ") {
					t.Errorf("h5py compared no %s value (it met %v)", k, r.Kinds)
				}
			}
			t.Logf("%d objects compared with .meta.json, %d values with h5py (%v)", n, r.Checked, r.Kinds)
		})
	}
}

// lsJSON runs `h5fs ls --json args name` and returns its objects (numbers
// as json.Number) and the file it wrote them to.
func lsJSON(t *testing.T, bin, name string, args ...string) ([]map[string]any, string) {
	t.Helper()
	out, err := exec.Command(bin, append(append([]string{"ls", "--json"}, args...), name)...).Output()
	if err != nil {
		t.Fatalf("h5fs ls %v: %v", args, err)
	}
	saved := filepath.Join(t.TempDir(), "ls.json")
	if err := os.WriteFile(saved, out, 0o644); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Objects []map[string]any }
	if err := decodeJSON(out, &doc); err != nil {
		t.Fatalf("h5fs ls %v: %v", args, err)
	}
	return doc.Objects, saved
}

// decodeJSON decodes b into v, numbers as json.Number.
func decodeJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// readMeta reads and decodes the .meta.json of directory dir.
func readMeta(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := decodeJSON(b, &m); err != nil {
		t.Fatalf("%s/.meta.json: %v", dir, err)
	}
	return m
}

// compareDescriptions compares each object of ls (and of verbose, the
// same listing with -v) with the mount's .meta.json files at mp, and
// returns how many objects it compared.
func compareDescriptions(t *testing.T, mp string, ls, verbose []map[string]any) int {
	t.Helper()
	if len(ls) != len(verbose) {
		t.Fatalf("ls lists %d objects, ls -v %d", len(ls), len(verbose))
	}
	listed := map[string]bool{}
	for _, o := range ls {
		listed[o["path"].(string)] = true
	}
	metas := map[string]map[string]any{} // by directory
	meta := func(dir string) map[string]any {
		if metas[dir] == nil {
			metas[dir] = readMeta(t, dir)
		}
		return metas[dir]
	}
	compared := 0
	for i, o := range ls {
		p, kind := o["path"].(string), o["kind"].(string)
		dir := fusetest.MountPath(mp, p)
		if p != "/" {
			link := findLink(meta(fusetest.MountPath(mp, path.Dir(p))), path.Base(p))
			switch {
			case link == nil:
				t.Errorf("%s: not among the links of its parent's .meta.json", p)
			case kind == "softlink" || kind == "externallink":
				same := link["target"] == o["target"] && link["file"] == o["file"]
				if lt := map[string]string{"softlink": "soft", "externallink": "external"}[kind]; !same || link["link_type"] != lt {
					t.Errorf("%s: the parent's .meta.json has link %v; ls says %v", p, link, o)
				}
			default:
				equalJSON(t, p+": in the parent's .meta.json", link["object"], o)
			}
		}
		if fi, err := os.Lstat(dir); kind == "group" && err == nil && fi.IsDir() {
			equalJSON(t, p+": its .meta.json", without(meta(dir), "table", "links"), o)
		}
		if o["sparse"] != nil {
			m := meta(dir)
			if m["views"] == nil {
				t.Errorf("%s: .meta.json has no views", p)
			}
			equalJSON(t, p+": its .meta.json and ls -v", without(m, "views"), verbose[i])
			if st, err := os.Stat(filepath.Join(dir, "csr")); err == nil && st.IsDir() {
				a, _ := os.ReadFile(filepath.Join(dir, ".meta.json"))
				b, err := os.ReadFile(filepath.Join(dir, "csr", ".meta.json"))
				if err != nil || !bytes.Equal(a, b) {
					t.Errorf("%s: csr/.meta.json (%v) differs from its parent's", p, err)
				}
			}
		}
		compared++
	}
	for dir, m := range metas {
		for _, l := range asObjects(m["links"]) {
			if !listed[path.Join(m["path"].(string), l["name"].(string))] {
				t.Errorf("%s/.meta.json: link %v is not in ls", dir, l["name"])
			}
		}
	}
	return compared
}

// without returns m without the keys given.
func without(m map[string]any, keys ...string) map[string]any {
	out := maps.Clone(m)
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// findLink returns the link named name of a .meta.json, or nil.
func findLink(m map[string]any, name string) map[string]any {
	for _, l := range asObjects(m["links"]) {
		if l["name"] == name {
			return l
		}
	}
	return nil
}

// asObjects returns a JSON array of objects.
func asObjects(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, x := range l {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// equalJSON fails unless the decoded JSON values got and want are equal,
// key for key.
func equalJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s: %s\nls --json says %s", what, g, w)
	}
}

// checkMetaEverywhere walks the mount at mp: every directory has a
// .meta.json, and it gives each .raw file's element type (raw_dtype).
func checkMetaEverywhere(t *testing.T, mp string) {
	t.Helper()
	err := filepath.WalkDir(mp, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if _, err := os.Stat(filepath.Join(p, ".meta.json")); err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		m := readMeta(t, p)
		types := map[string]any{}
		for _, l := range asObjects(m["links"]) {
			if o, ok := l["object"].(map[string]any); ok {
				types[l["shown_as"].(string)] = o["raw_dtype"]
			}
		}
		if tb, ok := m["table"].(map[string]any); ok {
			for _, c := range asObjects(tb["columns"]) {
				types[c["shown_as"].(string)] = c["raw_dtype"]
			}
		}
		es, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, e := range es {
			if stem, ok := strings.CutSuffix(e.Name(), ".raw"); ok {
				if dt, _ := types[stem].(string); dt == "" {
					t.Errorf("%s: .meta.json gives no raw_dtype for %s", p, e.Name())
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
