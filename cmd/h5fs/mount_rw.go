package main

import (
	"errors"

	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/h5core"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// rwMounter is mounter for `-o rw`: the file is opened for writing (taking
// libhdf5's lock and rolling back a hot journal first), the tree reads a
// snapshot of it, and table files take appends and truncation.
func rwMounter(src, mp string, mo mountOptions, opt fsnode.Options) (mount func() (*fuse.Server, error), done func(), err error) {
	rw, err := h5core.OpenRW(src)
	if err != nil {
		return nil, nil, err
	}
	f, err := rw.Snapshot(h5core.Options{ChunkCacheBytes: mountChunkCache})
	if err != nil {
		return nil, nil, errors.Join(err, rw.Close())
	}
	opt.RW = rw
	tree, err := fsnode.New(f, opt)
	if err != nil {
		return nil, nil, errors.Join(err, rw.Close())
	}
	done = func() {
		tree.PendingRows()
		if err := rw.Close(); err != nil {
			opt.Log.Printf("h5fs: %s: %v", src, err)
		}
	}
	return func() (*fuse.Server, error) { return fsnode.MountWith(tree, mp, mo.MountOptions) }, done, nil
}
