package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/h5core"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// runMount mounts FILE at MOUNTPOINT. It starts a background process that
// serves the mount and returns once the mount is ready (exit status 0) or
// has failed (the reason on stderr, status 1); with -f it serves in the
// foreground until the mount is unmounted or h5fs gets SIGINT or SIGTERM.
func runMount(args []string, w io.Writer) error {
	fl := flags("mount")
	var opts listFlag
	fl.Var(&opts, "o", "mount options: ro, rw, allow_other, uid=N, gid=N")
	fg := fl.Bool("f", false, "stay in the foreground")
	fl.BoolVar(fg, "foreground", false, "stay in the foreground")
	logFile := fl.String("log-file", "", "where the background process logs")
	pos, err := parseArgs(fl, args, 2, 2)
	if err != nil {
		return err
	}
	mo, err := parseMountOptions(opts)
	if err != nil {
		return err
	}
	src, mp := pos[0], pos[1]
	if st, err := os.Stat(mp); err != nil {
		return fmt.Errorf("mount point: %w", err)
	} else if !st.IsDir() {
		return fmt.Errorf("mount point %s is not a directory", mp)
	}
	if !*fg {
		if err := startDaemon(src, mp, opts.String(), *logFile); err != nil {
			return err
		}
		fmt.Fprintln(w, mountedLine(src, mp))
		return nil
	}
	ready := readyPipe()
	l := log.New(os.Stderr, "", log.LstdFlags)
	if *logFile != "" {
		lf, err := os.OpenFile(*logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		defer lf.Close()
		l.SetOutput(lf)
	}
	mount, closeFn, err := mounter(src, mp, mo, l)
	if err != nil {
		return reportFailure(ready, err)
	}
	if ready != nil {
		mount = withFusermountReason(mount)
	}
	defer closeFn()
	err = serve(mount, mp, func() {
		if ready != nil {
			fmt.Fprintln(ready, readyOK)
			ready.Close()
			return
		}
		fmt.Fprintln(w, mountedLine(src, mp))
	})
	return reportFailure(ready, err)
}

// mounter returns the function that mounts src at mp: one HDF5 file, or
// every HDF5 file below directory src; done closes what it opened.
func mounter(src, mp string, mo mountOptions, l *log.Logger) (mount func() (*fuse.Server, error), done func(), err error) {
	topt := treeOptions(l)
	topt.MaxSizedView = mo.MaxViewSize
	if st, err := os.Stat(src); err == nil && st.IsDir() {
		d, err := fsnode.NewDir(src, fsnode.DirOptions{Tree: topt, File: h5core.Options{ChunkCacheBytes: dirChunkCache}})
		if err != nil {
			return nil, nil, err
		}
		return func() (*fuse.Server, error) { return fsnode.MountDir(d, mp, mo.MountOptions) }, d.Close, nil
	}
	if mo.RW {
		return rwMounter(src, mp, mo, topt)
	}
	d, err := fsnode.NewFileDir(src, fsnode.DirOptions{Tree: topt, File: h5core.Options{ChunkCacheBytes: mountChunkCache}})
	if err != nil {
		return nil, nil, err
	}
	return func() (*fuse.Server, error) { return fsnode.MountDir(d, mp, mo.MountOptions) }, d.Close, nil
}

// mountedLine is what a successful mount prints: where, and how to undo it.
func mountedLine(src, mp string) string {
	return fmt.Sprintf("h5fs: %s mounted at %s; unmount with: %s", src, mp, unmountCommand(mp))
}

// unmountCommand is the command that unmounts mp for the user running
// h5fs: umount for root, fusermount3 -u for anyone else.
func unmountCommand(mp string) string {
	if os.Geteuid() == 0 {
		return "umount " + mp
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		return "fusermount -u " + mp
	}
	return "fusermount3 -u " + mp
}

// The memory of a mount: its live heap is the decoded-chunk cache, the
// chunks being decoded (a sequential scan decodes a few ahead) and the few
// rendered units each open view keeps, almost all of it pointer-free byte
// buffers. A scan of a 4 GB column turns that over many times a second,
// so with Go's default GOGC=100 the heap grows to twice the live data
// between collections (about 300-400 MB streaming an Arrow view of a gzip
// column). Three quarters of the default chunk cache still hold a
// sequential scan's read-ahead window (h5core sizes it to the cache), and collecting at 1.5x the live heap costs
// little since pointer-free buffers are not scanned: together they keep a
// streaming mount near 200 MB. GOGC in the environment still wins.
// A directory mount gives each of its (at most 64) open files a small
// chunk cache of its own.
const (
	mountChunkCache = 48 << 20
	dirChunkCache   = 4 << 20
	mountGCPercent  = 50
)

// serve mounts (by calling mount) at mountpoint, calls ready, and returns
// once the mount is gone.
func serve(mount func() (*fuse.Server, error), mountpoint string, ready func()) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mountGCPercent)
	}
	server, err := mount()
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

// absPath returns p made absolute (the background process runs in /).
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
