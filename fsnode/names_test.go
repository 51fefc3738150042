package fsnode

import (
	"bytes"
	"log"
	"slices"
	"strings"
	"testing"
)

func TestRespell(t *testing.T) {
	for in, want := range map[string]string{
		"_table": "%5Ftable",
		"b":      "%62",
		"..":     "%2E%2E",
		".x.csv": "%2E%78.csv",
		"%":      "%25",
		"":       "%",
		"é":      "%C3%A9",
		"%.csv":  "%25%2Ecsv",
	} {
		got := respell(in)
		if got != want {
			t.Errorf("respell(%q) = %q, want %q", in, got, want)
		}
		if u, ok := unescape(got); in != "" && (!ok || u != in) {
			t.Errorf("respell(%q) = %q unescapes to %q", in, got, u)
		}
	}
}

// TestSettleNames: generated names keep theirs; a member that would take
// one is respelled in all its names; a member shown under its own name
// gives way to another member's file.
func TestSettleNames(t *testing.T) {
	var logb bytes.Buffer
	tree := openTree(t, "testdata/names.h5")
	tree.opt.Log = log.New(&logb, "", 0)
	gen := func(n string) entry { return entry{name: n, file: &file{}} }
	es := []entry{gen(".meta.json"), gen("_table.csv"), gen("_table.arrow")}
	es = append(es, named([]entry{{name: "%.csv", file: &file{}}, {name: "%.raw", file: &file{}}}, "")...)
	es = append(es, named([]entry{{name: "_table.csv", file: &file{}}, {name: "_table.raw", file: &file{}}}, "_table")...)
	es = append(es, named([]entry{{name: "x.csv", dir: &dir{}}}, "x.csv")...)
	es = append(es, named([]entry{{name: "x.csv", file: &file{}}, {name: "x.npy", file: &file{}}}, "x")...)
	var got []string
	for _, e := range tree.settleNames(es) {
		got = append(got, e.name)
	}
	slices.Sort(got)
	want := []string{"%.csv", "%.raw", "%5Ftable.csv", "%5Ftable.raw", "%78.csv", ".meta.json", "_table.arrow", "_table.csv", "x.csv", "x.npy"}
	if !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	for _, w := range []string{`"_table" is shown as "%5Ftable.csv"`, `"x.csv" is shown as "%78.csv"`} {
		if !strings.Contains(logb.String(), w) {
			t.Errorf("log has no %s:\n%s", w, logb.String())
		}
	}
}
