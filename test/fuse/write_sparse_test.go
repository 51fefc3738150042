package fuse

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/internal/sparsetest"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestWriteSparseAppend defines, overwrites and erases elements of a
// sparse dataset by appending to its coo.csv through a read-write kernel
// mount (one define beyond the extent, which grows it within the
// maximum), checks that malformed lines, coordinates outside the maximum
// extent and values the type cannot hold are refused with EINVAL and
// nothing of that open file commits, and reads the result back through
// coo.csv after a remount and through the independent decoder.
func TestWriteSparseAppend(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join("..", "..", "sparsecoo", "testdata", "sparse_2d_int32_fa.h5"))
	mp, unmount := fusetest.MountRW(t, name, nil)
	coo := filepath.Join(mp, "int32_fa", "coo.csv")
	lines := csvLines(t, coo)
	header, model := lines[0], map[[2]int]string{}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		model[[2]int{atoi(t, f[0]), atoi(t, f[1])}] = f[2]
	}
	if len(model) != 48 {
		t.Fatalf("coo.csv has %d elements, want 48", len(model))
	}
	// (0,0) is new, (25,3) grows the extent to 26 rows, (0,6) is erased,
	// (3,5) overwritten
	if err := fusetest.Append(coo, []byte("0,0,5\n25,3,-1\n0,6,\n3,5,123\n")); err != nil {
		t.Fatalf("append: %v", err)
	}
	model[[2]int{0, 0}], model[[2]int{25, 3}], model[[2]int{3, 5}] = "5", "-1", "123"
	delete(model, [2]int{0, 6})
	want := cooLines(header, model)
	if got := csvLines(t, coo); !slices.Equal(got, want) {
		t.Fatalf("after the append coo.csv is\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if size := mtxSize(t, filepath.Join(mp, "int32_fa", "matrix.mtx")); size != "26 16 49" {
		t.Errorf("after the append matrix.mtx has size line %q, want \"26 16 49\"", size)
	}
	for _, bad := range []string{"1,1,9\n1,x,2\n", "1,1,9\n27,0,1\n", "1,1,9\n1,2,99999999999\n", "1,1,9\n1,2\n"} {
		if err := fusetest.Append(coo, []byte(bad)); !errors.Is(err, syscall.EINVAL) {
			t.Errorf("appending %q: %v, want EINVAL", bad, err)
		}
	}
	if got := csvLines(t, coo); !slices.Equal(got, want) {
		t.Fatalf("after refused appends coo.csv is\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	unmount()

	if got := csvLines(t, filepath.Join(fusetest.Mount(t, name, nil), "int32_fa", "coo.csv")); !slices.Equal(got, want) {
		t.Fatalf("after a remount coo.csv is\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	dec, err := sparsetest.Decode(name, "/int32_fa", "<i4")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dec.Shape, []uint64{26, 16}) {
		t.Errorf("the independent decoder reads shape %v, want [26 16]", dec.Shape)
	}
	var decoded []string
	for _, row := range dec.COO {
		decoded = append(decoded, fmt.Sprintf("%d,%d,%s", int(row[0]), int(row[1]), strconv.FormatFloat(row[2], 'f', -1, 64)))
	}
	if !slices.Equal(decoded, want[1:]) {
		t.Errorf("the independent decoder reads\n%s\nwant\n%s", strings.Join(decoded, "\n"), strings.Join(want[1:], "\n"))
	}
}

// cooLines returns the lines of a rank-2 coo.csv holding model, in
// row-major order.
func cooLines(header string, model map[[2]int]string) []string {
	keys := make([][2]int, 0, len(model))
	for k := range model {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return slices.Compare(a[:], b[:]) })
	lines := []string{header}
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("%d,%d,%s", k[0], k[1], model[k]))
	}
	return lines
}

// atoi parses a coordinate of a coo.csv line.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mtxSize returns the size line of a Matrix Market file.
func mtxSize(t *testing.T, name string) string {
	t.Helper()
	for _, l := range csvLines(t, name) {
		if !strings.HasPrefix(l, "%") {
			return l
		}
	}
	t.Fatalf("%s has no size line", name)
	return ""
}
