package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/h5fs/h5fs/h5core"
)

// dumpSparse prints the defined elements of a sparse dataset as h5dump
// would with the flags the programming model RFC §4.1 proposes: per
// stored chunk, "REGION_TYPE BLOCK (r0,c0)-(r1,c1)" for each block of a
// hyperslab (or "all") selection and "REGION_TYPE POINT" with the points
// of a point selection, each followed (unless locationsOnly) by its data,
// one line per row of a block starting with the row's first coordinates.
// Coordinates are global; positions outside the extent are left out.
func dumpSparse(w io.Writer, ds *h5core.Dataset, locationsOnly bool) error {
	if !ds.IsSparse() {
		return fmt.Errorf("%s is not a sparse dataset", ds.Path)
	}
	fmt.Fprintf(w, "DATASET %q {\n", ds.Path)
	fmt.Fprintf(w, "   DATATYPE  %s\n", ds.Type)
	printSimpleDataspace(w, ds)
	chunks, err := ds.SparseChunks()
	if err != nil {
		return err
	}
	for _, c := range chunks {
		sc, err := ds.ReadSparseChunk(c, !locationsOnly)
		if err != nil {
			return err
		}
		if err := dumpChunk(w, ds, sc, locationsOnly); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "}\n")
	return nil
}

// coords formats coordinates as "(a,b,c)".
func coords(c []uint64) string {
	s := make([]string, len(c))
	for i, v := range c {
		s[i] = fmt.Sprint(v)
	}
	return "(" + strings.Join(s, ",") + ")"
}

// dumpChunk prints the regions of one stored chunk.
func dumpChunk(w io.Writer, ds *h5core.Dataset, sc *h5core.SparseChunk, locationsOnly bool) error {
	shape, chunk := ds.Shape(), ds.ChunkShape()
	rank := len(shape)
	es := uint64(ds.Type.Size)
	value := func(i uint64) string {
		v, err := ds.File().ElementValue(ds.Type, sc.Values[i*es:(i+1)*es])
		if err != nil {
			return "error: " + err.Error()
		}
		return h5core.FormatValue(v)
	}
	// limit[i]: positions of the chunk inside the extent
	limit := make([]uint64, rank)
	for i := range limit {
		limit[i] = min(chunk[i], shape[i]-min(sc.Offset[i], shape[i]))
	}
	global := func(rel []uint64) []uint64 {
		g := make([]uint64, rank)
		for i := range g {
			g[i] = sc.Offset[i] + rel[i]
		}
		return g
	}
	sel := sc.Selection
	if sel.Kind == h5core.SelectPoints {
		pts := sel.Points()
		var list []string
		var data []string
		for k := 0; k+rank <= len(pts); k += rank {
			p := pts[k : k+rank]
			inside := true
			for i := range p {
				inside = inside && p[i] < limit[i]
			}
			if !inside {
				continue
			}
			list = append(list, coords(global(p)))
			if !locationsOnly {
				data = append(data, fmt.Sprintf("      %s %s", coords(global(p)), value(uint64(k/rank))))
			}
		}
		if len(list) == 0 {
			return nil
		}
		fmt.Fprintf(w, "   REGION_TYPE POINT %s\n", strings.Join(list, ", "))
		if !locationsOnly {
			fmt.Fprintf(w, "   DATA {\n%s\n   }\n", strings.Join(data, "\n"))
		}
		return nil
	}
	// value index of each chunk-relative position, from the selection's
	// row-major runs
	stride := make([]uint64, rank)
	st := uint64(1)
	for i := rank - 1; i >= 0; i-- {
		stride[i] = st
		st *= chunk[i]
	}
	pos := map[uint64]uint64{}
	if !locationsOnly {
		var vi uint64
		sel.Runs(func(start []uint64, n uint64) error {
			var o uint64
			for i, v := range start {
				o += v * stride[i]
			}
			for k := uint64(0); k < n; k++ {
				pos[o+k] = vi + k
			}
			vi += n
			return nil
		})
	}
	return sel.Blocks(func(lo, hi []uint64) error {
		clo, chi := make([]uint64, rank), make([]uint64, rank)
		for i := range lo {
			if lo[i] >= limit[i] {
				return nil
			}
			clo[i], chi[i] = lo[i], min(hi[i], limit[i]-1)
		}
		fmt.Fprintf(w, "   REGION_TYPE BLOCK %s-%s\n", coords(global(clo)), coords(global(chi)))
		if locationsOnly {
			return nil
		}
		fmt.Fprintf(w, "   DATA {\n")
		row := append([]uint64(nil), clo...)
		for {
			var vals []string
			var o uint64
			for i := 0; i < rank-1; i++ {
				o += row[i] * stride[i]
			}
			for c := clo[rank-1]; c <= chi[rank-1]; c++ {
				vals = append(vals, value(pos[o+c]))
			}
			fmt.Fprintf(w, "      %s %s\n", coords(global(row)), strings.Join(vals, ", "))
			i := rank - 2
			for ; i >= 0; i-- {
				row[i]++
				if row[i] <= chi[i] {
					break
				}
				row[i] = clo[i]
			}
			if i < 0 {
				break
			}
		}
		fmt.Fprintf(w, "   }\n")
		return nil
	})
}
