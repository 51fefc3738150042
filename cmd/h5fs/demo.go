package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"

	"github.com/h5fs/h5fs/h5core"
)

// sample is the built-in demo file.
//
//go:embed sample/sample.h5
var sample []byte

func runDemo(args []string, w io.Writer) error {
	if len(args) != 0 {
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
	return nil
}
