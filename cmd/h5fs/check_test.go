package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		args    []string
		violate bool
		want    []string
	}{
		{[]string{"sample/sample.h5"}, false, []string{"/run1/events (hep001, 200 rows, 3 columns)", "2 tables, 0 errors"}},
		{[]string{"--verify-indexes", "sample/sample.h5"}, false, []string{"2 tables, 0 errors"}},
		{[]string{"--strict", "sample/sample.h5"}, true, []string{"error §5", "refused in strict mode"}},
		{[]string{"../../table/testdata/tampered.h5"}, true, []string{"/stray/notes", "not shown:", "§7.3 /bad_nrows"}},
		{[]string{"../../table/testdata/tampered.h5", "--verify-indexes"}, true, []string{"error §10.4 /events/SEARCH_INDEXES/ts__chunk_minmax"}},
	} {
		var out bytes.Buffer
		err := runCheck(c.args, &out)
		if got := errors.Is(err, errViolation); got != c.violate || (err != nil && !got) {
			t.Errorf("check %v: %v, want violation %v\n%s", c.args, err, c.violate, out.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("check %v: output lacks %q:\n%s", c.args, w, out.String())
			}
		}
	}
	if err := runCheck(nil, &bytes.Buffer{}); !errors.Is(err, errUsage) {
		t.Errorf("no file: %v, want usage", err)
	}
}
