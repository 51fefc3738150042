package main

import (
	"bytes"
	"strings"
	"testing"
)

const sparseFixtures = "../../sparsecoo/testdata/"

// run runs a subcommand and returns its output.
func run(t *testing.T, fn func([]string, *bytes.Buffer) error, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := fn(args, &out); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return out.String()
}

func TestDumpSparse(t *testing.T) {
	dump := func(a []string, w *bytes.Buffer) error { return runDump(a, w) }
	out := run(t, dump, "--sparse", sparseFixtures+"sparse_1d_int32_fa.h5", "/example_1d")
	for _, want := range []string{
		`DATASET "/example_1d" {`,
		"REGION_TYPE BLOCK (1)-(3)\n   DATA {\n      (1) 101, 102, 103\n   }",
		"REGION_TYPE BLOCK (7)-(7)\n   DATA {\n      (7) 107\n   }",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dump --sparse lacks %q:\n%s", want, out)
		}
	}
	out = run(t, dump, "--sparse", "--locations-only", sparseFixtures+"sparse_2d_uint8_single.h5", "/uint8_single_points")
	if !strings.Contains(out, "REGION_TYPE POINT (4,4), (9,4), (5,1),") || strings.Contains(out, "DATA {") {
		t.Errorf("dump --sparse --locations-only:\n%s", out)
	}
	var buf bytes.Buffer
	if err := runDump([]string{"--sparse", sparseFixtures + "sparse_1d_int32_fa.h5", "/dense_ref"}, &buf); err == nil {
		t.Error("dump --sparse of a dense dataset: no error")
	}
}

func TestStatAndLsSparse(t *testing.T) {
	stat := func(a []string, w *bytes.Buffer) error { return runStat(a, w) }
	out := run(t, stat, sparseFixtures+"sparse_2d_int32_fa.h5")
	for _, want := range []string{"Dataset layout counts[STRUCTURED CHUNK SPARSE]: 3", "Dataset layout counts[CONTIG]: 1", "deflate filter: 2", "shuffle filter: 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("stat lacks %q:\n%s", want, out)
		}
	}
	ls := func(a []string, w *bytes.Buffer) error { return runLs(a, w) }
	out = run(t, ls, "-v", sparseFixtures+"sparse_2d_int32_fa.h5", "/int32_fa_filtered")
	for _, want := range []string{"Sparse Chunks: {4, 4} 64 bytes, index fixed_array", "Section 0 selection", "Filter-0: deflate-1 OPT {9}", "Filter-0: shuffle-2 OPT {4}", "Filter-1: deflate-1 OPT {3}", "86 defined elements"} {
		if !strings.Contains(out, want) {
			t.Errorf("ls -v lacks %q:\n%s", want, out)
		}
	}
}
