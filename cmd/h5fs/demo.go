package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/h5core"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// sample is the built-in demo file.
//
//go:embed sample/sample.h5
var sample []byte

// runDemo lists the built-in sample file, then mounts it at MOUNTPOINT
// (a new temporary directory if none is given) and prints what to try.
func runDemo(args []string, w io.Writer) error {
	if len(args) > 1 {
		return errUsage
	}
	f, err := h5core.NewFile(bytes.NewReader(sample), int64(len(sample)), "sample.h5", h5core.Options{})
	if err != nil {
		return err
	}
	root, err := f.Root()
	if err != nil {
		return err
	}
	e := describe(root, false)
	list(e, true, false, map[uint64]bool{root.Addr: true})
	fmt.Fprintln(w, "h5fs demo: the built-in sample file")
	printEntry(w, e, false)

	mp := ""
	if len(args) == 1 {
		mp = args[0]
	} else {
		if mp, err = os.MkdirTemp("", "h5fs-demo-"); err != nil {
			return err
		}
		defer os.Remove(mp)
	}
	tree, err := fsnode.New(f, treeOptions(log.New(os.Stderr, "", log.LstdFlags)))
	if err != nil {
		return err
	}
	return serve(func() (*fuse.Server, error) { return fsnode.Mount(tree, mp) }, mp, func() { tryThis(w, mp) })
}

// tryThis prints commands to run on the demo mount, naming files found
// on it.
func tryThis(w io.Writer, mp string) {
	found := map[string]string{}
	filepath.WalkDir(mp, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			ext := filepath.Ext(p)
			if _, ok := found[ext]; !ok {
				found[ext] = p
			}
		}
		return nil
	})
	fmt.Fprintf(w, "\nmounted at %s; try, in another shell:\n", mp)
	fmt.Fprintf(w, "  ls -lR %s\n  cat %s\n  getfattr -d -R %s\n", mp, filepath.Join(mp, ".meta.json"), mp)
	if p, ok := found[".csv"]; ok {
		fmt.Fprintf(w, "  head %s\n", p)
	}
	if p, ok := found[".npy"]; ok {
		fmt.Fprintf(w, "  /usr/bin/python3 -c \"import numpy; print(numpy.load('%s', mmap_mode='r'))\"\n", p)
	}
	if p, ok := found[".parquet"]; ok {
		fmt.Fprintf(w, "  duckdb -c \"SELECT count(*) FROM '%s'\"\n", p)
	}
	fmt.Fprintf(w, "press Ctrl-C (or umount %s) to stop\n", strings.TrimSuffix(mp, "/"))
}
