package main

import "testing"

// TestParseMountOptions checks the options that take values.
func TestParseMountOptions(t *testing.T) {
	for _, c := range []struct {
		opts    string
		maxView int64
		uid     uint32
		bad     bool
	}{
		{opts: "ro,uid=7", uid: 7},
		{opts: "max_view_size=1000", maxView: 1000},
		{opts: "max_view_size=3K", maxView: 3 << 10},
		{opts: "max_view_size=2t", maxView: 2 << 40},
		{opts: "max_view_size=64G", maxView: 64 << 30},
		{opts: "max_view_size=0", bad: true},
		{opts: "max_view_size=-5", bad: true},
		{opts: "max_view_size=G", bad: true},
		{opts: "max_view_size=9000000T", bad: true},
		{opts: "max_view_size", bad: true},
		{opts: "max_view_size=", bad: true},
		{opts: "uid=x", bad: true},
	} {
		mo, err := parseMountOptions([]string{c.opts})
		if c.bad {
			if err == nil {
				t.Errorf("%s: no error", c.opts)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.opts, err)
			continue
		}
		if mo.MaxViewSize != c.maxView || (c.uid != 0 && mo.UID != c.uid) {
			t.Errorf("%s: max view %d uid %d, want %d %d", c.opts, mo.MaxViewSize, mo.UID, c.maxView, c.uid)
		}
	}
}
