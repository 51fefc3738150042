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
	var pos, opts []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "-o" || a == "-t") && i+1 < len(args):
			if a == "-o" {
				opts = append(opts, args[i+1])
			}
			i++
		case a == "-f":
			return nil
		case strings.HasPrefix(a, "-o"):
			opts = append(opts, a[2:])
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// -s (sloppy), -n (no mtab), -v (verbose), -N: nothing to do.
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) != 2 {
		return errUsage
	}
	return runMount([]string{"-o", strings.Join(opts, ","), pos[0], pos[1]}, io.Discard)
}
