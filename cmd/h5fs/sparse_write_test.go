package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/internal/sparsetest"
)

// sparseFixture copies a committed sparse fixture to a temporary file and
// returns its path and the expected elements of dataset name
// ("r,c" -> value).
func sparseFixture(t *testing.T, file, name string) (string, map[string]float64) {
	t.Helper()
	dir := filepath.Join("..", "..", "sparsecoo", "testdata")
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(file, ".h5")+".expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Datasets []struct {
			Name string
			COO  [][]float64
		}
	}
	if err := json.Unmarshal(j, &exp); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, d := range exp.Datasets {
		if d.Name == strings.TrimPrefix(name, "/") {
			for _, r := range d.COO {
				want[fmt.Sprintf("%v,%v", r[0], r[1])] = r[2]
			}
		}
	}
	return p, want
}

// checkDecoded compares what the independent decoder reads with want.
func checkDecoded(t *testing.T, path, name, dtype string, want map[string]float64) {
	t.Helper()
	dec, err := sparsetest.Decode(path, name, dtype)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range dec.COO {
		got[fmt.Sprintf("%v,%v", r[0], r[1])] = r[2]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the independent decoder reads\n%v\nwant\n%v", got, want)
	}
}

// TestImportMTX defines a Matrix Market file's elements in a fixture's
// sparse dataset (overwriting one), and refuses files that do not fit
// or parse, committing nothing of them.
func TestImportMTX(t *testing.T) {
	path, want := sparseFixture(t, "sparse_2d_int32_fa.h5", "/int32_fa")
	mtx := filepath.Join(t.TempDir(), "m.mtx")
	write := func(s string) {
		if err := os.WriteFile(mtx, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("%%MatrixMarket matrix coordinate integer general\n% a comment\n23 16 4\n1 1 5\n23 16 -7\n2 3 9\n1 1 6\n")
	var out strings.Builder
	if err := runImportMTX([]string{path, "/int32_fa", mtx}, &out); err != nil {
		t.Fatal(err)
	}
	want["0,0"], want["22,15"], want["1,2"] = 6, -7, 9
	checkDecoded(t, path, "/int32_fa", "<i4", want)
	for _, bad := range []string{
		"%%MatrixMarket matrix coordinate integer general\n23 16 1\n24 1 1\n",
		"%%MatrixMarket matrix coordinate integer general\n100000000000 16 1\n1 1 1\n",
		"%%MatrixMarket matrix coordinate integer general\n23 16 2\n3 3 1\n1 1 x\n",
		"%%MatrixMarket matrix coordinate integer general\n23 16 1\n0 1 1\n",
		"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
	} {
		write(bad)
		if err := runImportMTX([]string{path, "/int32_fa", mtx}, io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	checkDecoded(t, path, "/int32_fa", "<i4", want)
}

// TestSparsify copies a dense dataset into a sparse one: its zeros (the
// fill value) erase, everything else defines; with --exclude another
// value is the one left undefined.
func TestSparsify(t *testing.T) {
	for _, exclude := range []string{"", "3"} {
		path, want := sparseFixture(t, "sparse_2d_int32_fa.h5", "/int32_fa")
		skip := int32(0)
		if exclude == "3" {
			skip = 3
		}
		for k, v := range denseInt32(t, path, "/dense_ref") {
			if v == skip {
				delete(want, k)
			} else {
				want[k] = float64(v)
			}
		}
		args := []string{path, "/dense_ref", "/int32_fa"}
		if exclude != "" {
			args = append([]string{"--exclude", exclude}, args...)
		}
		if err := runSparsify(args, io.Discard); err != nil {
			t.Fatal(err)
		}
		checkDecoded(t, path, "/int32_fa", "<i4", want)
	}
}
