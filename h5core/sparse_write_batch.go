package h5core

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// SparseUpdate is the change of one structured chunk for
// Tx.UpdateSparseChunks.
type SparseUpdate struct {
	Scaled []uint64 // chunk coordinates
	// Old is the chunk's content as the file holds it (what a previous
	// update returned); nil: read it from the file
	Old   *SparseContent
	Edits []SparseEdit // ascending by position, one per position
}

// sparseWindowBytes bounds the content an UpdateSparseChunks call holds
// in flight (old and new chunks of the updates being encoded).
const sparseWindowBytes = 64 << 20

// UpdateSparseChunks applies the edits of each update to its chunk of the
// sparse dataset at path, like WriteSparseChunk with the chunk's content
// after the edits, and calls keep, in the order of ups, with each
// chunk's content after the transaction (the old one when the edits
// change nothing, an empty one for a chunk that is not stored), for the
// caller to pass as Old in a later transaction. Chunks are merged and
// encoded on every core, a window of them at a time, and written in the
// order of ups; a chunk stored as a point list is built from the old
// one's encoding (SparseContent). Positions must lie inside the dataset's
// current extent (SetExtent first).
func (tx *Tx) UpdateSparseChunks(path string, ups []SparseUpdate, keep func(i int, c *SparseContent)) error {
	d, err := tx.sparseDataset(path)
	if err != nil {
		return err
	}
	tx.startReuseSync()
	for lo := 0; lo < len(ups); {
		hi, held := lo, 0
		for hi < len(ups) && (hi == lo || held < sparseWindowBytes) {
			u := &ups[hi]
			if err := d.checkSparseChunk(u.Scaled, nil); err != nil {
				return err
			}
			if u.Old == nil {
				if u.Old, err = d.storedContent(u.Scaled); err != nil {
					return err
				}
			}
			held += 2*u.Old.Bytes() + len(u.Edits)*(8+d.ds.Type.PackedSize())
			hi++
		}
		if err := d.updateWindow(ups[lo:hi], lo, keep); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// storedContent reads the content of the stored chunk at scaled (an
// empty one when none is stored) as the transaction sees it.
func (d *dsWriter) storedContent(scaled []uint64) (*SparseContent, error) {
	loc, err := d.idx.get(scaled)
	if err != nil || loc.addr == undefAddr {
		return &SparseContent{}, err
	}
	g := d.ds.geom
	off := make([]uint64, len(scaled))
	for i, s := range scaled {
		off[i] = s * g.chunk[i]
	}
	c, err := d.ds.ReadSparseChunk(ChunkInfo{Offset: off, Addr: loc.addr, StoredSize: loc.size, Sections: loc.stc.info(loc.size)}, true)
	if err != nil {
		return nil, err
	}
	idx, vals, err := c.Positions()
	if err != nil {
		return nil, err
	}
	return NewSparseContent(idx, vals), nil
}

// sparseResult is one chunk of a window merged and encoded.
type sparseResult struct {
	c       *SparseContent
	changed bool
	enc     []byte
	rec     *stcRecord
	err     error
}

// updateWindow merges and encodes the chunks of ups on every core, then
// stores them in order; base is the index of ups[0] for keep.
func (d *dsWriter) updateWindow(ups []SparseUpdate, base int, keep func(int, *SparseContent)) error {
	ds := d.ds
	g := ds.geom
	es := ds.Type.PackedSize()
	res := make([]sparseResult, len(ups))
	work := func(i int) {
		u, r := &ups[i], &res[i]
		r.c, r.changed, r.err = mergeSparse(g.chunk, es, u.Old, u.Edits)
		if r.err != nil || !r.changed || r.c.Len() == 0 {
			return
		}
		if r.c.raw != nil {
			r.enc, r.rec, r.err = ds.packSparseChunk(u.Scaled, g.dims, r.c.raw[:len(r.c.raw)-len(r.c.vals)], r.c.vals, r.c.raw)
		} else {
			r.enc, r.rec, r.err = ds.encodeSparseChunk(u.Scaled, g.dims, r.c.idx, r.c.vals)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(ups)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(ups); i = int(next.Add(1)) - 1 {
				work(i)
			}
		})
	}
	wg.Wait()
	for i := range ups {
		u, r := &ups[i], &res[i]
		if r.err != nil {
			return d.errf("structured chunk %v: %v", u.Scaled, r.err)
		}
		if r.changed {
			if err := d.checkSparseChunk(u.Scaled, r.c.idx); err != nil {
				return err
			}
			if err := d.storeEncoded(u.Scaled, r.enc, r.rec); err != nil {
				return err
			}
		}
		keep(base+i, r.c)
	}
	return nil
}
