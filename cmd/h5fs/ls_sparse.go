package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/h5fs/h5fs/h5core"
)

// lsSparse is the storage of a structured-chunk sparse dataset as `h5fs
// ls` reports it (programming model RFC §4.2: "Sparse Chunks").
type lsSparse struct {
	ChunkShape   []uint64    `json:"chunk_shape"`
	ChunkBytes   uint64      `json:"chunk_bytes"`
	Index        string      `json:"chunk_index"`
	Chunks       int         `json:"stored_chunks,omitempty"`
	NNZ          uint64      `json:"nnz,omitempty"`
	LogicalBytes int64       `json:"logical_bytes,omitempty"`
	StoredBytes  uint64      `json:"allocated_bytes,omitempty"`
	Sections     []lsSection `json:"sections"`
	Error        string      `json:"error,omitempty"`
	verbose      bool
}

// lsSection is one section of the structured chunks.
type lsSection struct {
	Section         int               `json:"section"`
	Content         string            `json:"content"`
	Filters         []lsSectionFilter `json:"filters,omitempty"`
	StoredBytes     uint64            `json:"allocated_bytes"`
	UnfilteredBytes uint64            `json:"unfiltered_bytes"`
}

// lsSectionFilter is one filter of a section's pipeline.
type lsSectionFilter struct {
	ID         uint16   `json:"id"`
	Name       string   `json:"name"`
	Optional   bool     `json:"optional"`
	ClientData []uint32 `json:"cd_values"`
}

// describeSparse reads a sparse dataset's chunk shape and per-section
// filters; with verbose, also the stored chunks (their selections give
// nnz) and per-section sizes.
func describeSparse(ds *h5core.Dataset, verbose bool) *lsSparse {
	s := &lsSparse{ChunkShape: ds.ChunkShape(), ChunkBytes: uint64(ds.Type.Size), Index: ds.ChunkIndexKind().String(), verbose: verbose}
	for _, c := range s.ChunkShape {
		s.ChunkBytes *= c
	}
	s.Sections = []lsSection{{Section: 0, Content: "selection"}, {Section: 1, Content: "values"}}
	for i, p := range ds.SectionFilters {
		for _, f := range p {
			if i < len(s.Sections) {
				s.Sections[i].Filters = append(s.Sections[i].Filters, lsSectionFilter{f.ID, f.DisplayName(), f.Flags&1 != 0, f.ClientData})
			}
		}
	}
	if !verbose {
		return s
	}
	s.LogicalBytes = ds.Size()
	chunks, err := ds.SparseChunks()
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.Chunks = len(chunks)
	for _, c := range chunks {
		s.StoredBytes += c.StoredSize
		for i, sec := range c.Sections {
			if i < len(s.Sections) {
				s.Sections[i].StoredBytes += sec.StoredSize
				s.Sections[i].UnfilteredBytes += sec.UnfilteredSize
			}
		}
	}
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
func printSparse(w io.Writer, ind string, s *lsSparse) {
	fmt.Fprintf(w, "%sSparse Chunks: %s %d bytes, index %s\n", ind, dims(s.ChunkShape, nil), s.ChunkBytes, s.Index)
	if s.verbose {
		util := 0.0
		if s.StoredBytes > 0 {
			util = 100 * float64(s.LogicalBytes) / float64(s.StoredBytes)
		}
		fmt.Fprintf(w, "%sStorage:   %d logical bytes, %d allocated bytes, %.2f%% utilization, %d chunks, %d defined elements\n",
			ind, s.LogicalBytes, s.StoredBytes, util, s.Chunks, s.NNZ)
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
