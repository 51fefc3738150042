package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/h5fs/h5fs/fsnode"
)

// mountOptions are the parsed `-o` options of a mount.
type mountOptions struct {
	fsnode.MountOptions
	// RW mounts read-write: tables take appends and truncation.
	RW bool
	// MaxViewSize is fsnode.Options.MaxSizedView (max_view_size=N, with
	// an optional K, M, G or T suffix: powers of 1024); 0 is the default.
	MaxViewSize int64
}

// ignoredOptions are the generic mount(8) and fstab options a FUSE mount
// helper receives and has no use for.
var ignoredOptions = map[string]bool{
	"ro": true, "defaults": true, "auto": true, "noauto": true, "user": true, "nouser": true,
	"users": true, "_netdev": true, "nofail": true, "dev": true, "nodev": true, "suid": true,
	"nosuid": true, "exec": true, "noexec": true, "atime": true, "noatime": true,
	"relatime": true, "async": true,
}

// parseMountOptions parses comma-separated mount options (several -o
// flags are joined). Files belong to the mounting user unless uid= or
// gid= say otherwise.
func parseMountOptions(opts []string) (mountOptions, error) {
	mo := mountOptions{}
	mo.UID, mo.GID = uint32(os.Getuid()), uint32(os.Getgid())
	for _, o := range strings.Split(strings.Join(opts, ","), ",") {
		key, val, hasVal := strings.Cut(o, "=")
		switch {
		case o == "" || ignoredOptions[o] || strings.HasPrefix(o, "x-") || key == "comment":
		case o == "rw":
			mo.RW = true
		case o == "allow_other":
			mo.AllowOther = true
		case (key == "uid" || key == "gid") && hasVal:
			n, err := strconv.ParseUint(val, 10, 32)
			if err != nil {
				return mo, fmt.Errorf("mount option %q: not a numeric id", o)
			}
			if key == "uid" {
				mo.UID = uint32(n)
			} else {
				mo.GID = uint32(n)
			}
		case key == "max_view_size" && hasVal:
			n, err := parseByteSize(val)
			if err != nil {
				return mo, fmt.Errorf("mount option %q: %v", o, err)
			}
			mo.MaxViewSize = n
		default:
			return mo, fmt.Errorf("mount option %q is not supported (ro, rw, allow_other, uid=N, gid=N, max_view_size=N)", o)
		}
	}
	return mo, nil
}

// parseByteSize parses a positive byte count with an optional K, M, G or
// T suffix (powers of 1024).
func parseByteSize(s string) (int64, error) {
	shift := 0
	if s != "" {
		if i := strings.IndexByte("KMGT", strings.ToUpper(s)[len(s)-1]); i >= 0 {
			shift, s = 10*(i+1), s[:len(s)-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("not a byte count (N, NK, NM, NG or NT)")
	}
	return n << shift, nil
}

// listFlag is a flag that may be given several times.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set implements flag.Value.
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }
