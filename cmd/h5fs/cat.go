package main

import (
	"io"

	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/h5core"
)

// runCat writes the bytes the mount serves at VIEWPATH, without mounting.
func runCat(args []string, w io.Writer) error {
	if len(args) != 2 {
		return errUsage
	}
	f, err := h5core.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	tree, err := fsnode.New(f, fsnode.Options{})
	if err != nil {
		return err
	}
	v, err := tree.Open(args[1])
	if err != nil {
		return err
	}
	_, err = io.Copy(w, io.NewSectionReader(v, 0, v.Size()))
	return err
}
