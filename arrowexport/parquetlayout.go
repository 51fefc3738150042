package arrowexport

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// How the column chunks of a big table are laid out. The kernel reads a
// FUSE file in whole pages and, past what a reader asks for, reads ahead
// up to a megabyte (the mount serves Parquet with direct I/O, where a
// read() reaches h5fs as asked, but a reader that maps the file faults
// it in through the page cache). So a reader that fetches one column chunk, as DuckDB
// does for the columns a query needs, also gets bytes of the column chunks
// after it (and of the one before, that shares its first page), and
// rendering those reads their HDF5 chunks too. When column chunks are big,
// the file therefore holds them column by column (column 0 of every row
// group, then column 1, ...), each starting on a page boundary with zero
// bytes padding the gap before it: what the kernel reads ahead of a column
// chunk is then the next row group's chunk of the same column, which a
// scan of that column wants anyway. Parquet readers find column chunks
// through the footer's offsets, which say where each one is; the format
// asks neither that a row group's chunks be adjacent nor that there be no
// gaps (parquet-mr itself pads row groups). Tables of small column chunks
// keep the usual layout, where padding would swell the file and rendering
// a neighbour costs little.
const (
	parquetPage     = 4096     // the alignment of a column chunk of a big table
	parquetAlignMin = 64 << 10 // mean column chunk size from which a table is big
)

// chunkBytes is the length of unit u in the unpadded file md describes:
// the total size of the column chunks of its leaf columns.
func (r *parquetRenderer) chunkBytes(md *metadata.FileMetaData, u int) int64 {
	ncols := len(r.t.Columns)
	i, j := u/ncols, u%ncols
	rg := md.RowGroups[i]
	n := int64(0)
	for k := r.leafBase(j); k < r.leafBase(j)+r.leaves[j]; k++ {
		if m := rg.Columns[k].MetaData; m != nil {
			n += m.TotalCompressedSize
		}
	}
	return n
}

// arrange returns the file order of the column chunks (by their index
// i*ncols+j) of a big table whose column chunks have the given lengths,
// the start of each chunk (by the same index) and the footer's start; nil
// for a table that keeps the writer's layout.
func (r *parquetRenderer) arrange(lens []int64) (order []int, pos []int64, end int64) {
	total := int64(0)
	for _, l := range lens {
		total += l
	}
	if len(lens) == 0 || total/int64(len(lens)) < parquetAlignMin {
		return nil, nil, 0
	}
	ncols := len(r.t.Columns)
	pos = make([]int64, len(lens))
	end = int64(len(parquetMagic))
	for j := range ncols {
		for i := range r.nunits {
			u := i*ncols + j
			pos[u] = end
			order = append(order, u)
			end = (end + lens[u] + parquetPage - 1) / parquetPage * parquetPage
		}
	}
	return order, pos, end
}

// shiftFooter returns the footer foot of the file as written, whose column
// chunks start at old, with the offsets of each chunk moved to its start
// in pos.
func (r *parquetRenderer) shiftFooter(foot []byte, old, pos []int64) ([]byte, error) {
	md, err := metadata.NewFileMetaData(foot[:len(foot)-8], nil)
	if err != nil {
		return nil, err
	}
	ncols := len(r.t.Columns)
	for i, rg := range md.RowGroups {
		first := true
		k := 0
		for j := range ncols {
			u := i*ncols + j
			d := pos[u] - old[u]
			for range r.leaves[j] {
				cc := rg.Columns[k]
				k++
				m := cc.MetaData
				if m == nil || m.IndexPageOffset != nil || m.BloomFilterOffset != nil || cc.ColumnIndexOffset != nil || cc.OffsetIndexOffset != nil {
					return nil, fmt.Errorf("arrowexport: parquet row group %d column %d: unexpected metadata layout", i, k-1)
				}
				cc.FileOffset += d
				m.DataPageOffset += d
				if m.DictionaryPageOffset != nil {
					*m.DictionaryPageOffset += d
				}
				if first && rg.FileOffset != nil {
					*rg.FileOffset += d
				}
				first = false
			}
		}
	}
	return encodeFooter(md)
}

// encodeFooter returns the footer that holds md: the file metadata, its
// length and the closing magic.
func encodeFooter(md *metadata.FileMetaData) ([]byte, error) {
	var b bytes.Buffer
	if _, err := md.WriteTo(&b, nil); err != nil {
		return nil, err
	}
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(b.Len())))
	b.WriteString(parquetMagic)
	return b.Bytes(), nil
}

// footerInfo is what the layout's footer says of the column chunks, each
// indexed i*ncols+j for row group i and column j.
type footerInfo struct {
	chunk []int   // the column chunk of each unit, in file order
	bytes []int64 // the length of each column chunk (without padding)
	// dense is set when the footer's statistics count no nulls in the
	// column chunk. They come from the data pass or from sound
	// ChunkStats, so this is known without reading any data.
	dense []bool
}

// footer decodes the layout's footer once; nil if it does not decode.
func (r *parquetRenderer) footer() *footerInfo {
	r.footOnce.Do(func() {
		r.view.mu.Lock()
		foot := r.view.lay.Foot
		r.view.mu.Unlock()
		if len(foot) < 8 {
			return
		}
		md, err := metadata.NewFileMetaData(foot[:len(foot)-8], nil)
		if err != nil || md.NumRowGroups() != r.nunits || md.NumColumns() != r.leafBase(len(r.leaves)) {
			return
		}
		ncols := len(r.t.Columns)
		nu := r.nunits * ncols
		info := &footerInfo{chunk: make([]int, nu), bytes: make([]int64, nu), dense: make([]bool, nu)}
		starts := make([]int64, nu)
		for u := range nu {
			i, j := u/ncols, u%ncols
			info.chunk[u] = u
			info.bytes[u] = r.chunkBytes(md, u)
			if starts[u], err = columnChunkStart(md, i, r.leafBase(j)); err != nil {
				return
			}
			if r.leaves[j] != 1 {
				continue
			}
			cc, err := md.RowGroup(i).ColumnChunk(r.leafBase(j))
			if err != nil {
				continue
			}
			st, err := cc.Statistics()
			info.dense[u] = err == nil && st != nil && st.HasNullCount() && st.NullCount() == 0
		}
		sort.Slice(info.chunk, func(a, b int) bool { return starts[info.chunk[a]] < starts[info.chunk[b]] })
		r.foot = info
	})
	return r.foot
}
