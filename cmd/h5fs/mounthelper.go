package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// isMountHelper reports whether h5fs was started as a mount(8) helper:
// as mount.fuse.h5fs (a link to h5fs in /sbin), or by mount.fuse3 for
// `mount -t fuse.h5fs`, which runs `h5fs SOURCE MOUNTPOINT -o OPTIONS`.
func isMountHelper(argv []string) bool {
	if strings.HasPrefix(filepath.Base(argv[0]), "mount.") {
		return true
	}
	if len(argv) < 3 {
		return false
	}
	for _, c := range commands {
		if c.name == argv[1] {
			return false
		}
	}
	_, err := os.Stat(argv[1])
	return err == nil
}

// runMountHelper mounts as mount(8) asks a helper to:
// SOURCE MOUNTPOINT [-sfnv] [-o OPTIONS] [-t TYPE]. The mount runs in the
// background and, as helpers do, prints nothing; -f (mount's "fake")
// mounts nothing.
func runMountHelper(args []string) error {
	pos, opts, fake := helperArgs(args)
	if fake {
		return nil
	}
	if len(pos) != 2 {
		return errUsage
	}
	return runMount([]string{"-o", strings.Join(opts, ","), pos[0], pos[1]}, io.Discard)
}

// helperArgs parses a mount helper's arguments into the source and mount
// point, the mount options and whether mount(8) only fakes the mount.
// mount(8) passes "rw" to every helper unless "ro" is given (an fstab
// line with "defaults", or `mount -t fuse.h5fs FILE DIR`), so "rw" is
// dropped here: a mount made this way is read-only, whatever its options,
// and a read-write mount takes `h5fs mount -o rw`.
func helperArgs(args []string) (pos, opts []string, fake bool) {
	add := func(o string) {
		for _, x := range strings.Split(o, ",") {
			if x != "rw" {
				opts = append(opts, x)
			}
		}
	}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "-o" || a == "-t") && i+1 < len(args):
			if a == "-o" {
				add(args[i+1])
			}
			i++
		case a == "-f":
			fake = true
		case strings.HasPrefix(a, "-o"):
			add(a[2:])
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// -s (sloppy), -n (no mtab), -v (verbose), -N: nothing to do.
		default:
			pos = append(pos, a)
		}
	}
	return pos, opts, fake
}
