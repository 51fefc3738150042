package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// countSparse returns the storage of sparse dataset ds counted (per
// section sizes, chunks, defined elements: programming model RFC §4.2,
// "Sparse Chunks"), or uncounted with the reason.
func countSparse(ds *h5core.Dataset) *arrowexport.SparseStorage {
	m, err := sparsecoo.Open(ds)
	if err == nil {
		var s *arrowexport.SparseStorage
		if s, err = arrowexport.CountSparse(ds, m); err == nil {
			return s
		}
	}
	s := arrowexport.DescribeSparse(ds)
	s.Error = err.Error()
	return s
}

// printSparse prints the "Sparse Chunks" block of a dataset.
func printSparse(w io.Writer, ind string, e *lsEntry, verbose bool) {
	s := e.Sparse
	fmt.Fprintf(w, "%sSparse Chunks: %s %d bytes, index %s\n", ind, dims(e.Description.Chunks, nil), s.ChunkBytes, e.ChunkIndex)
	if verbose && s.Error == "" {
		util := 0.0
		if s.AllocatedBytes > 0 {
			util = 100 * float64(s.LogicalBytes) / float64(s.AllocatedBytes)
		}
		fmt.Fprintf(w, "%sStorage:   %d logical bytes, %d allocated bytes, %.2f%% utilization, %d chunks, %d defined elements\n",
			ind, s.LogicalBytes, s.AllocatedBytes, util, s.StoredChunks, s.NNZ)
	}
	for _, sec := range s.Sections {
		fmt.Fprintf(w, "%sSection %d %s\n", ind, sec.Section, sec.Content)
		if verbose && s.Error == "" {
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
