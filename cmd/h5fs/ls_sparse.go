package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
)

// lsSparse is the storage of a structured-chunk sparse dataset as `h5fs
// ls` reports it (programming model RFC §4.2: "Sparse Chunks"); its chunk
// shape and index are the dataset's Description's.
type lsSparse struct {
	arrowexport.SparseStorage
	Error   string `json:"error,omitempty"`
	verbose bool
}

// describeSparse reads a sparse dataset's per-section filters; with
// verbose, also the stored chunks (their selections give nnz) and
// per-section sizes.
func describeSparse(ds *h5core.Dataset, verbose bool) *lsSparse {
	s := &lsSparse{SparseStorage: arrowexport.DescribeSparse(ds, nil), verbose: verbose}
	if !verbose {
		s.LogicalBytes = 0
		return s
	}
	chunks, err := ds.SparseChunks()
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.SparseStorage = arrowexport.DescribeSparse(ds, chunks)
	for _, c := range chunks {
		sc, err := ds.ReadSparseChunk(c, false)
		if err != nil {
			s.Error = err.Error()
			return s
		}
		s.NNZ += sc.NNZ()
	}
	return s
}

// printSparse prints the "Sparse Chunks" block of a dataset.
func printSparse(w io.Writer, ind string, e *lsEntry) {
	s := e.Sparse
	fmt.Fprintf(w, "%sSparse Chunks: %s %d bytes, index %s\n", ind, dims(e.Description.Chunks, nil), s.ChunkBytes, e.ChunkIndex)
	if s.verbose {
		util := 0.0
		if s.AllocatedBytes > 0 {
			util = 100 * float64(s.LogicalBytes) / float64(s.AllocatedBytes)
		}
		fmt.Fprintf(w, "%sStorage:   %d logical bytes, %d allocated bytes, %.2f%% utilization, %d chunks, %d defined elements\n",
			ind, s.LogicalBytes, s.AllocatedBytes, util, s.StoredChunks, s.NNZ)
	}
	for _, sec := range s.Sections {
		fmt.Fprintf(w, "%sSection %d %s\n", ind, sec.Section, sec.Content)
		if s.verbose {
			fmt.Fprintf(w, "%s  Storage: %d unfiltered bytes, %d allocated bytes\n", ind, sec.UnfilteredBytes, sec.StoredBytes)
		}
		for i, f := range sec.Filters {
			var cd []string
			for _, v := range f.ClientData {
				cd = append(cd, fmt.Sprint(v))
			}
			opt := ""
			if f.Optional {
				opt = " OPT"
			}
			fmt.Fprintf(w, "%s  Filter-%d: %s-%d%s {%s}\n", ind, i, f.Name, f.ID, opt, strings.Join(cd, ", "))
		}
	}
	if s.Error != "" {
		fmt.Fprintf(w, "%s  Error: %s\n", ind, s.Error)
	}
}
