package main

import (
	"fmt"
	"io"
	"path"

	"github.com/h5fs/h5fs/h5core"
)

// runDensify writes a new dense dataset DST from the sparse dataset SRC:
// chunked like SRC (its chunk shape, type, shape, maximum shape and fill
// value; --filter sets the chunk pipeline), every chunk holding a defined
// element written whole with the fill value for the undefined ones,
// chunks without any left unallocated (they read as the fill value), all
// in one transaction.
func runDensify(args []string, stdout io.Writer) error {
	fs := flags("densify")
	filters := fs.String("filter", "", "filters of DST's chunks, as shuffle,deflate=4")
	pos, err := parseArgs(fs, args, 3, 3)
	if err != nil {
		return err
	}
	file, src, dst := pos[0], pos[1], pos[2]
	pipeline, err := h5core.ParseFilters(*filters)
	if err != nil {
		return fmt.Errorf("--filter: %w", err)
	}
	rw, err := h5core.OpenRW(file)
	if err != nil {
		return err
	}
	defer rw.Close()
	sds, err := openDataset(rw.File(), src)
	if err != nil {
		return err
	}
	if !sds.IsSparse() {
		return fmt.Errorf("%s: %s is a %s dataset, not a sparse one", file, src, sds.Layout())
	}
	chunks, err := sds.SparseChunks()
	if err != nil {
		return err
	}
	fill, fillSet := sds.FillValue()
	spec := h5core.DatasetSpec{Type: sds.Type, Dims: sds.Shape(), MaxDims: sds.MaxShape(), Chunk: sds.ChunkShape(), Filters: pipeline}
	if fillSet {
		spec.Fill = fill
	}
	tx, err := rw.Begin()
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	dst = path.Clean("/" + dst)
	parent, name := path.Split(dst)
	if err = tx.CreateDataset(parent, name, spec); err != nil {
		return err
	}
	pr := newProgress(int64(len(chunks)), "chunks")
	defer pr.finish()
	chunk, es := spec.Chunk, uint64(sds.Type.Size)
	buf := make([]byte, es)
	for _, c := range spec.Chunk {
		buf = make([]byte, uint64(len(buf))*c)
	}
	var defined uint64
	for _, ci := range chunks {
		var sc *h5core.SparseChunk
		if sc, err = sds.ReadSparseChunk(ci, true); err != nil {
			return err
		}
		for i := 0; i < len(buf); i += len(fill) {
			copy(buf[i:], fill)
		}
		err = sc.Runs(func(start []uint64, n uint64, vals []byte) error {
			var at uint64 // row-major index in the chunk
			for i, s := range start {
				at = at*chunk[i] + s - ci.Offset[i]
			}
			copy(buf[at*es:], vals)
			defined += n
			return nil
		})
		if err != nil {
			return err
		}
		if err = tx.WriteChunk(dst, ci.Offset, buf); err != nil {
			return err
		}
		pr.add(1)
	}
	if err = tx.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d defined elements in %d chunks written to %s\n", src, defined, len(chunks), dst)
	return nil
}
