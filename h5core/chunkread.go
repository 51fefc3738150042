package h5core

import (
	"runtime"
	"sync"
)

// decodeSlots bounds concurrent chunk decodes across all datasets.
var decodeSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// readAhead is how many chunks past a sequential read are decoded in the
// background.
var readAhead = runtime.GOMAXPROCS(0)

// readChunked fills p with the bytes at off of a chunked dataset. Only
// the chunks that overlap the byte range are read; they are decoded in
// parallel, and when reads are sequential the following chunks are
// decoded ahead of time.
func (ds *Dataset) readChunked(p []byte, off int64) error {
	g := ds.geom
	es := int64(g.elemSize)
	if es == 0 || len(p) == 0 {
		return nil
	}
	idx, err := ds.chunkIndex()
	if err != nil {
		return err
	}
	end := off + int64(len(p))
	rowElems := int64(1)
	for _, d := range g.dims[1:] {
		rowElems *= int64(d)
	}
	rowBytes := rowElems * es
	r0, r1 := off/rowBytes, (end-1)/rowBytes
	c0, c1 := uint64(r0)/g.chunk[0], uint64(r1)/g.chunk[0]
	grid := g.grid(g.dims)
	var list [][]uint64
	for c := c0; c <= c1; c++ {
		sub := append([]uint64{1}, grid[1:]...)
		eachScaled(sub, func(s []uint64) error {
			s[0] = c
			list = append(list, s)
			return nil
		})
	}

	// Decode the chunks of this read in parallel, a window at a time.
	var wg sync.WaitGroup
	window := readAhead
	start := func(s []uint64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ds.prefetch(idx, s, grid)
		}()
	}
	for i := 0; i < len(list) && i < window; i++ {
		start(list[i])
	}
	for i, s := range list {
		if i+window < len(list) {
			start(list[i+window])
		}
		data, err := ds.chunkData(idx, s, grid)
		if err != nil {
			wg.Wait()
			return err
		}
		ds.copyChunk(p, off, s, data)
	}
	wg.Wait()

	// A sequential scan: decode the chunks that follow in the background.
	ds.seqMu.Lock()
	sequential := off == ds.seqNext
	ds.seqNext = end
	ds.seqMu.Unlock()
	if sequential && c1+1 < grid[0] {
		var next [][]uint64
		for c := c1 + 1; c < grid[0] && len(next) < readAhead; c++ {
			sub := append([]uint64{1}, grid[1:]...)
			eachScaled(sub, func(s []uint64) error {
				s[0] = c
				if len(next) < readAhead {
					next = append(next, s)
				}
				return nil
			})
		}
		for _, s := range next {
			if !ds.f.cache.has(chunkKey{ds.Addr, linear(s, grid)}) {
				go ds.prefetch(idx, s, grid)
			}
		}
	}
	return nil
}

// prefetch decodes a chunk into the cache, holding a decode slot.
func (ds *Dataset) prefetch(idx chunkIndex, s, grid []uint64) {
	if ds.f.cache.has(chunkKey{ds.Addr, linear(s, grid)}) {
		return
	}
	decodeSlots <- struct{}{}
	defer func() { <-decodeSlots }()
	ds.chunkData(idx, s, grid)
}

// chunkData returns the decoded bytes of the chunk at scaled coordinates
// s, or nil when it was never written.
func (ds *Dataset) chunkData(idx chunkIndex, s, grid []uint64) ([]byte, error) {
	key := chunkKey{ds.Addr, linear(s, grid)}
	return ds.f.cache.get(key, func() ([]byte, error) {
		loc, err := idx.chunk(s)
		if err != nil {
			return nil, err
		}
		want := ds.geom.chunkBytes()
		if loc.addr == undefAddr {
			return nil, nil // never written: copyChunk fills
		}
		raw, err := ds.f.read(loc.addr, loc.size)
		if err != nil {
			return nil, err
		}
		if len(ds.Filters) == 0 {
			if uint64(len(raw)) < want {
				return nil, formatErr(loc.addr, "chunk %v holds %d bytes, expected %d", s, len(raw), want)
			}
			return raw[:want], nil
		}
		out, err := decodeChunk(ds.Filters, loc.mask, raw, int(want))
		if err != nil {
			return nil, formatErr(loc.addr, "chunk %v: %v", s, err)
		}
		return out, nil
	})
}

// copyChunk copies the part of chunk s (decoded bytes data) that lies in
// the byte range [off, off+len(p)) of the dataset into p. A nil data is a
// chunk that was never written: its part of p gets the fill value.
func (ds *Dataset) copyChunk(p []byte, off int64, s []uint64, data []byte) {
	g := ds.geom
	rank := len(g.dims)
	es := int64(g.elemSize)
	end := off + int64(len(p))
	origin := make([]uint64, rank)
	valid := make([]uint64, rank)
	for i := range s {
		origin[i] = s[i] * g.chunk[i]
		valid[i] = min(g.chunk[i], g.dims[i]-origin[i])
	}
	// strides in elements, in the chunk and in the dataset
	cstride := make([]int64, rank)
	dstride := make([]int64, rank)
	cs, dsz := int64(1), int64(1)
	for i := rank - 1; i >= 0; i-- {
		cstride[i], dstride[i] = cs, dsz
		cs *= int64(g.chunk[i])
		dsz *= int64(g.dims[i])
	}
	runLen := int64(valid[rank-1]) * es
	t := make([]uint64, rank) // position inside the chunk; t[rank-1] stays 0
	for {
		var cIdx, dIdx int64
		for i := 0; i < rank; i++ {
			cIdx += int64(t[i]) * cstride[i]
			dIdx += int64(origin[i]+t[i]) * dstride[i]
		}
		b0, b1 := dIdx*es, dIdx*es+runLen
		if b1 > off && b0 < end {
			lo, hi := max(b0, off), min(b1, end)
			src := cIdx*es + (lo - b0)
			if data == nil {
				fillRepeat(p[lo-off:hi-off], ds.fill, lo)
			} else {
				copy(p[lo-off:hi-off], data[src:src+(hi-lo)])
			}
		}
		if b0 >= end {
			return // later runs of this chunk lie further on
		}
		i := rank - 2
		for ; i >= 0; i-- {
			t[i]++
			if t[i] < valid[i] {
				break
			}
			t[i] = 0
		}
		if i < 0 {
			return
		}
	}
}
