package fsnode

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// maxRequest is the largest read request asked of the kernel (its limit).
const maxRequest = 1 << 20

// MountOptions are the choices of whoever mounts, as `-o` gives them.
type MountOptions struct {
	// AllowOther lets users other than the mounting one see the mount.
	AllowOther bool
	// UID and GID own every file and directory; zero means root.
	UID, GID uint32
}

// Mount mounts the tree read-only at mountpoint, owned by root, and
// returns the running server; Unmount it, then Wait for it.
func Mount(t *Tree, mountpoint string) (*fuse.Server, error) {
	return MountWith(t, mountpoint, MountOptions{})
}

// MountWith mounts the tree (read-only unless it was made with
// Options.RW) at mountpoint with the given
// options and returns the running server.
func MountWith(t *Tree, mountpoint string, mo MountOptions) (*fuse.Server, error) {
	return mountRoot(&dirNode{t: t, d: t.root}, t.f.Name(), mountpoint, mo, false)
}

// mountRoot mounts the node tree under root read-only at mountpoint. The
// attribute and entry timeouts are left to each node (see
// shared/docs/clients-on-fuse.md). A name looked up in vain is remembered
// by the kernel unless the files may change (changing): a new state of a
// file may have it.
func mountRoot(root fs.InodeEmbedder, source, mountpoint string, mo MountOptions, changing bool) (*fuse.Server, error) {
	var negative *time.Duration
	if !changing {
		n := longTimeout
		negative = &n
	}
	mode := "ro"
	if d, ok := root.(*dirNode); ok && d.t.w != nil {
		mode = "rw" // a read-write tree (Options.RW)
	}
	server, err := fs.Mount(mountpoint, root, &fs.Options{
		NegativeTimeout: negative,
		UID:             mo.UID,
		GID:             mo.GID,
		MountOptions: fuse.MountOptions{
			FsName:       source,
			Name:         "h5fs",
			Options:      []string{mode},
			AllowOther:   mo.AllowOther,
			DirectMount:  true,
			MaxWrite:     maxRequest,
			MaxReadAhead: maxRequest,
			// Content is rendered in memory: splicing it would only add
			// a copy into a pipe, and a 1 MiB reply does not fit one.
			DisableSplice: true,
			// mmap of the direct-I/O files (raw and .npy; kernel 6.6+)
			ExtraCapabilities: fuse.CAP_DIRECT_IO_ALLOW_MMAP,
		},
	})
	if err != nil {
		return nil, err
	}
	raiseReadAhead(mountpoint)
	return server, nil
}

// raiseReadAhead lifts the kernel readahead of the new mount to 1 MiB,
// which go-fuse cannot do (it can only lower the kernel's offer). It
// needs root; without it the default of 128 KiB stays.
func raiseReadAhead(mountpoint string) {
	var st syscall.Stat_t
	if syscall.Stat(mountpoint, &st) != nil {
		return
	}
	major, minor := (st.Dev>>8)&0xfff, (st.Dev&0xff)|((st.Dev>>12)&0xfff00)
	bdi := fmt.Sprintf("/sys/class/bdi/%d:%d/read_ahead_kb", major, minor)
	_ = os.WriteFile(bdi, []byte(fmt.Sprint(maxRequest>>10)), 0)
}

// mtimeOf returns the modification time of the named file, or now.
func mtimeOf(name string) time.Time {
	if st, err := os.Stat(name); err == nil {
		return st.ModTime()
	}
	return time.Now()
}
