package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/h5core"
)

// runMount mounts FILE at MOUNTPOINT and serves it until the mount is
// unmounted (umount, fusermount -u) or h5fs gets SIGINT or SIGTERM.
func runMount(args []string, w io.Writer) error {
	fl := flags("mount")
	opts := fl.String("o", "ro", "mount options: ro")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return errUsage
	}
	for _, o := range strings.Split(*opts, ",") {
		if o != "ro" && o != "" {
			return fmt.Errorf("mount option %q is not supported (read-only mounts only)", o)
		}
	}
	f, err := h5core.OpenWith(pos[0], h5core.Options{ChunkCacheBytes: mountChunkCache})
	if err != nil {
		return err
	}
	defer f.Close()
	return serve(f, pos[1], func() {
		fmt.Fprintf(w, "h5fs: %s mounted at %s (read-only); unmount with: umount %s\n", pos[0], pos[1], pos[1])
	})
}

// The memory of a mount: its live heap is the decoded-chunk cache, the
// chunks being decoded (a sequential scan decodes a few ahead) and the few
// rendered units each open view keeps, almost all of it pointer-free byte
// buffers. A scan of a 4 GB column turns that over many times a second,
// so with Go's default GOGC=100 the heap grows to twice the live data
// between collections (about 300-400 MB streaming an Arrow view of a gzip
// column). Half the default chunk cache is still a few times a sequential
// scan's read-ahead window, and collecting at 1.5x the live heap costs
// little since pointer-free buffers are not scanned: together they keep a
// streaming mount near 200 MB. GOGC in the environment still wins.
const (
	mountChunkCache = 48 << 20
	mountGCPercent  = 50
)

// serve mounts f at mountpoint, calls ready, and returns once the mount
// is gone.
func serve(f *h5core.File, mountpoint string, ready func()) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mountGCPercent)
	}
	tree, err := fsnode.New(f, treeOptions(log.New(os.Stderr, "", log.LstdFlags)))
	if err != nil {
		return err
	}
	server, err := fsnode.Mount(tree, mountpoint)
	if err != nil {
		return fmt.Errorf("mount %s: %w", mountpoint, err)
	}
	ready()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := make(chan struct{})
	go func() {
		server.Wait()
		close(done)
	}()
	for {
		select {
		case <-done:
			return nil
		case <-sig:
			// A busy mount refuses to go; say so and keep trying.
			for server.Unmount() != nil {
				fmt.Fprintf(os.Stderr, "h5fs: %s is busy; retrying unmount\n", mountpoint)
				select {
				case <-done:
					return nil
				case <-time.After(time.Second):
				}
			}
		}
	}
}

// treeOptions are the tree options of mount and cat: the renderers' sizing
// cache in the user's cache directory (none if there is no such place).
func treeOptions(l *log.Logger) fsnode.Options {
	o := fsnode.Options{Log: l}
	if c, err := arrowexport.NewCache(""); err == nil {
		o.Cache = c
	} else {
		l.Printf("h5fs: no sizing cache: %v", err)
	}
	return o
}
