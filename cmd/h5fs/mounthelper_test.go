package main

import (
	"slices"
	"testing"
)

// TestHelperArgs checks how the arguments mount(8) and mount.fuse3 give a
// helper are read: options from -o (joined or not), -t skipped, -f a fake
// mount, and mount(8)'s default "rw" dropped so that an fstab line
// without "ro" still mounts read-only.
func TestHelperArgs(t *testing.T) {
	for _, c := range []struct {
		args      []string
		pos, opts []string
		fake      bool
	}{
		{args: []string{"f.h5", "/mnt", "-o", "rw"}, pos: []string{"f.h5", "/mnt"}},
		{args: []string{"f.h5", "/mnt", "-o", "rw,allow_other,nofail"}, pos: []string{"f.h5", "/mnt"}, opts: []string{"allow_other", "nofail"}},
		{args: []string{"f.h5", "/mnt", "-o", "ro,allow_other"}, pos: []string{"f.h5", "/mnt"}, opts: []string{"ro", "allow_other"}},
		{args: []string{"-t", "fuse.h5fs", "f.h5", "-oro,uid=7", "/mnt", "-s", "-n"}, pos: []string{"f.h5", "/mnt"}, opts: []string{"ro", "uid=7"}},
		{args: []string{"f.h5", "/mnt", "-f", "-o", "ro"}, pos: []string{"f.h5", "/mnt"}, opts: []string{"ro"}, fake: true},
		{args: []string{"f.h5"}, pos: []string{"f.h5"}},
	} {
		pos, opts, fake := helperArgs(c.args)
		if !slices.Equal(pos, c.pos) || !slices.Equal(opts, c.opts) || fake != c.fake {
			t.Errorf("helperArgs(%q) = %q, %q, %v; want %q, %q, %v", c.args, pos, opts, fake, c.pos, c.opts, c.fake)
		}
	}
	// and the options reach the mount read-only
	_, opts, _ := helperArgs([]string{"f.h5", "/mnt", "-o", "rw,allow_other"})
	mo, err := parseMountOptions(opts)
	if err != nil || mo.RW || !mo.AllowOther {
		t.Errorf("options %q: %+v, %v; want read-only with allow_other", opts, mo, err)
	}
}
