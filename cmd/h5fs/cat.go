package main

import (
	"io"
	"log"
	"os"

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
	tree, err := fsnode.New(f, treeOptions(log.New(os.Stderr, "", 0)))
	if err != nil {
		return err
	}
	v, err := tree.Open(args[1])
	if err != nil {
		return err
	}
	// Large reads: renderers work in blocks. (The wrapper hides
	// SectionReader.WriteTo so that the buffer size is used.)
	_, err = io.CopyBuffer(w, struct{ io.Reader }{io.NewSectionReader(v, 0, v.Size())}, make([]byte, 1<<20))
	return err
}
