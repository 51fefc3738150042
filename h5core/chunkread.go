package h5core

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// decodeSlots bounds concurrent background chunk decodes across all
// datasets: one per core.
var decodeSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// minParallelChunk is the smallest decoded chunk that is decoded on a
// goroutine of its own; smaller ones cost less than the hand-off.
const minParallelChunk = 64 << 10

// readAhead is how many chunks past a sequential scan are decoded in the
// background: one per core, and one queued so that a core freed by a
// finished decode starts the next at once.
var readAhead = runtime.GOMAXPROCS(0) + 1

// minDirectRun is the shortest stretch of an unfiltered chunk that a read
// takes straight from the file into the caller's buffer; chunks of rank 2
// and more whose rows are shorter are read whole into the chunk cache,
// which costs fewer reads. (A chunk of rank 1 is one stretch.)
const minDirectRun = 4 << 10

// scanState follows one dataset's sequential scan for decode-ahead.
type scanState struct {
	mu      sync.Mutex
	next    int64           // the end of the scan so far (bytes)
	pending map[uint64]bool // chunks handed to a decode-ahead goroutine
}

// readChunked fills p with the bytes at off of a chunked dataset. Only
// the chunks that overlap the byte range are read; filtered chunks are
// decoded in parallel, and when reads follow each other the next chunks
// are decoded ahead of the reader. Unfiltered chunks with long rows are
// read straight into p.
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
	grid := g.grid(g.dims)
	list := g.chunksInRange(off/es, (end+es-1)/es, grid)

	// Decode the chunks of this read in parallel, a window at a time, when
	// decoding is worth a goroutine (filtered chunks of some size).
	parallel := len(ds.Filters) > 0 && g.chunkBytes() >= minParallelChunk
	direct := len(ds.Filters) == 0 && ds.layout.class == layoutChunked &&
		(len(g.chunk) == 1 || g.chunk[len(g.chunk)-1]*g.elemSize >= minDirectRun)
	if parallel {
		ds.decodeAhead(idx, grid, off, end)
	}
	var wg sync.WaitGroup
	var done atomic.Bool // the read is over: its chunks are no longer wanted
	finish := func() { done.Store(true); wg.Wait() }
	window := readAhead
	start := func(s []uint64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ds.prefetch(idx, s, grid, func() bool { return !done.Load() })
		}()
	}
	for i := 0; parallel && i < len(list) && i < window; i++ {
		start(list[i])
	}
	for i, s := range list {
		if parallel && i+window < len(list) {
			start(list[i+window])
		}
		if direct {
			if err := ds.readDirect(idx, p, off, s); err != nil {
				return err
			}
			continue
		}
		data, err := ds.chunkData(idx, s, grid)
		if err != nil {
			finish()
			return err
		}
		ds.copyChunk(p, off, s, func(dst []byte, src int64) { copy(dst, data[src:]) }, data == nil)
	}
	finish()
	return nil
}

// decodeAhead notes a read of [off, end) and, when it continues a
// sequential scan, starts decoding the chunks that follow it in the
// background, as many as the chunk cache holds beside the chunk being
// read, the one before it (a straggling request may still want it) and
// one spare.
// Reads count as sequential when they start at most a chunk past the end
// of the scan so far, or not far behind it: the kernel sends a reader's
// requests concurrently and they arrive out of order.
func (ds *Dataset) decodeAhead(idx chunkIndex, grid []uint64, off, end int64) {
	g := ds.geom
	cb := int64(g.chunkBytes())
	depth := min(int64(readAhead), ds.f.cache.budget/(cb+cacheEntryCost)-3)
	if depth <= 0 {
		return
	}
	sc := &ds.scan
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if off < sc.next-(depth+1)*cb || off > sc.next+cb {
		sc.next = end // a jump: a new scan starts here
		return
	}
	sc.next = max(sc.next, end)
	es := int64(g.elemSize)
	e := (sc.next + es - 1) / es
	total := int64(ds.NumElements())
	next := g.chunksInRange(e, min(total, e+depth*(cb/es)), grid)
	// the first chunk listed may be the one being read: depth more
	for _, s := range next[:min(int64(len(next)), depth+1)] {
		key := linear(s, grid)
		if sc.pending[key] || ds.f.cache.has(chunkKey{ds.Addr, key}) {
			continue
		}
		if sc.pending == nil {
			sc.pending = map[uint64]bool{}
		}
		sc.pending[key] = true
		// a goroutine that runs late (a busy machine) finds the scan past
		// the chunk, which was read and perhaps evicted: not decoded again
		past := int64(g.lastElement(s)+1) * es
		go func() {
			ds.prefetch(idx, s, grid, func() bool {
				sc.mu.Lock()
				defer sc.mu.Unlock()
				return sc.next < past
			})
			sc.mu.Lock()
			delete(sc.pending, key)
			sc.mu.Unlock()
		}()
	}
}

// readDirect copies the part of unfiltered chunk s that lies in the byte
// range [off, off+len(p)) of the dataset straight from the file into p.
func (ds *Dataset) readDirect(idx chunkIndex, p []byte, off int64, s []uint64) error {
	loc, err := idx.chunk(s)
	if err != nil {
		return err
	}
	if loc.addr == undefAddr {
		ds.copyChunk(p, off, s, nil, true)
		return nil
	}
	if want := ds.geom.chunkBytes(); loc.size < want {
		return formatErr(loc.addr, "chunk %v holds %d bytes, expected %d", s, loc.size, want)
	}
	if !ds.f.holds(loc.addr, loc.size) {
		return formatErr(loc.addr, "chunk %v of %d bytes lies beyond the end of the file (%d bytes)", s, loc.size, ds.f.Size())
	}
	abs := loc.addr + ds.f.base
	ds.copyChunk(p, off, s, func(dst []byte, src int64) {
		if err != nil {
			return
		}
		if _, e := ds.f.r.ReadAt(dst, int64(abs)+src); e != nil && !errors.Is(e, io.EOF) {
			err = formatErr(loc.addr, "chunk %v: read %d bytes: %v", s, len(dst), e)
		}
	}, false)
	return err
}

// chunksInRange lists, in order of first use, the scaled coordinates of
// the chunks holding the elements [e0, e1) of the row-major order. The
// work is bounded by the number of elements, whatever the grid.
func (g *chunkGeom) chunksInRange(e0, e1 int64, grid []uint64) [][]uint64 {
	rank := len(g.dims)
	last := int64(g.dims[rank-1])
	if e1 <= e0 || last == 0 {
		return nil
	}
	cl := int64(g.chunk[rank-1])
	var list [][]uint64
	seen := map[uint64]bool{}
	coord := make([]uint64, rank)
	first, lastRow := e0/last, (e1-1)/last
	row := func(r int64) {
		lo, hi := int64(0), last-1
		if r == first {
			lo = e0 % last
		}
		if r == lastRow {
			hi = (e1 - 1) % last
		}
		rem := uint64(r)
		for i := rank - 2; i >= 0; i-- {
			coord[i] = (rem % g.dims[i]) / g.chunk[i]
			rem /= g.dims[i]
		}
		for c := lo / cl; c <= hi/cl; c++ {
			coord[rank-1] = uint64(c)
			key := linear(coord, grid)
			if !seen[key] {
				seen[key] = true
				list = append(list, append([]uint64(nil), coord...))
			}
		}
	}
	for r := first; r <= lastRow; {
		// Rows r .. bandEnd lie in the same chunks along every dimension
		// but the last; rows strictly between the first and last row of
		// the range are whole rows, so visiting r, r+1 and bandEnd finds
		// all of the band's chunks.
		bandEnd := r
		if rank >= 2 {
			d, c := int64(g.dims[rank-2]), int64(g.chunk[rank-2])
			in := r % d
			bandEnd = r + min((in/c+1)*c, d) - in - 1
		}
		bandEnd = min(bandEnd, lastRow)
		row(r)
		if r+1 <= bandEnd {
			row(r + 1)
		}
		if bandEnd > r+1 {
			row(bandEnd)
		}
		r = bandEnd + 1
	}
	return list
}

// prefetch decodes a chunk into the cache, holding a decode slot, unless
// it is there already or wanted (if not nil) says, once a slot is free,
// that it is no longer wanted.
func (ds *Dataset) prefetch(idx chunkIndex, s, grid []uint64, wanted func() bool) {
	if ds.f.cache.has(chunkKey{ds.Addr, linear(s, grid)}) {
		return
	}
	decodeSlots <- struct{}{}
	defer func() { <-decodeSlots }()
	if wanted != nil && !wanted() {
		return
	}
	ds.chunkData(idx, s, grid)
}

// lastElement returns the row-major index of the last element of the
// dataset that chunk s holds.
func (g *chunkGeom) lastElement(s []uint64) uint64 {
	var e uint64
	for i, d := range g.dims {
		e = e*d + min((s[i]+1)*g.chunk[i], d) - 1
	}
	return e
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
		if loc.stc != nil {
			return ds.denseStructuredChunk(loc)
		}
		if len(ds.Filters) == 0 {
			raw, err := ds.f.read(loc.addr, loc.size)
			if err != nil {
				return nil, err
			}
			if uint64(len(raw)) < want {
				return nil, formatErr(loc.addr, "chunk %v holds %d bytes, expected %d", s, len(raw), want)
			}
			return raw[:want], nil
		}
		bp, _ := storedBufs.Get().(*[]byte)
		if bp == nil {
			bp = new([]byte)
		}
		raw, err := ds.f.readBuf(*bp, loc.addr, loc.size)
		if err != nil {
			storedBufs.Put(bp)
			return nil, err
		}
		*bp = raw
		out, err := decodeChunk(ds.Filters, loc.mask, raw, int(want))
		if !sameArray(out, raw) {
			storedBufs.Put(bp) // the decoded chunk is not part of it
		}
		if err != nil {
			return nil, fmt.Errorf("chunk %v at %#x: %w", s, loc.addr, err)
		}
		return out, nil
	})
}

// storedBufs pools the buffers a filtered chunk's stored bytes are read
// into: free again once the chunk is decoded, unless the decoded chunk is
// part of one (all its filters skipped, say).
var storedBufs sync.Pool // of *[]byte

// copyChunk fills the part of chunk s that lies in the byte range
// [off, off+len(p)) of the dataset into p, one run of the chunk's last
// dimension at a time: run fills dst from the chunk's decoded bytes at
// src. A chunk that was never written (fill) gets the fill value instead.
func (ds *Dataset) copyChunk(p []byte, off int64, s []uint64, run func(dst []byte, src int64), fill bool) {
	chunkRuns(ds.geom, s, off, off+int64(len(p)), func(cByte, pByte, n int64) {
		if fill {
			fillRepeat(p[pByte:pByte+n], ds.fill, off+pByte)
		} else {
			run(p[pByte:pByte+n], cByte)
		}
	})
}

// chunkRuns calls fn for every run of contiguous elements (a row of the
// chunk's last dimension) that chunk s holds inside the current extent
// and that overlaps the dataset's byte range [off, end), clipped to that
// range: the run's byte offset in the decoded chunk, its byte offset from
// off, and its length in bytes. Runs come in the dataset's row-major
// order. Readers (copyChunk) and writers (dsWriter.writeChunked) share it.
func chunkRuns(g *chunkGeom, s []uint64, off, end int64, fn func(cByte, pByte, n int64)) {
	rank := len(g.dims)
	es := int64(g.elemSize)
	origin := make([]uint64, rank)
	valid := make([]uint64, rank)
	for i := range s {
		origin[i] = s[i] * g.chunk[i]
		if origin[i] >= g.dims[i] {
			return
		}
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
		for i := range rank {
			cIdx += int64(t[i]) * cstride[i]
			dIdx += int64(origin[i]+t[i]) * dstride[i]
		}
		b0, b1 := dIdx*es, dIdx*es+runLen
		if b0 >= end {
			return // later runs of this chunk lie further on
		}
		if b1 > off {
			lo, hi := max(b0, off), min(b1, end)
			fn(cIdx*es+(lo-b0), lo-off, hi-lo)
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
