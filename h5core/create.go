package h5core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// DatasetSpec describes a dataset Tx.CreateDataset makes.
type DatasetSpec struct {
	// Type is the element type. A type read from a file is written as
	// that file stored it; a new one must be a fixed-point or IEEE float
	// number.
	Type *Datatype
	// Dims are the current dimensions (rank 1 or more).
	Dims []uint64
	// MaxDims are the maximum dimensions (Unlimited for an unlimited
	// one); nil means Dims.
	MaxDims []uint64
	// Chunk are the chunk dimensions; nil makes a contiguous dataset
	// (storage allocated and filled at once). A sparse dataset needs them.
	Chunk []uint64
	// Fill is the fill value, one element in the file's encoding; nil
	// leaves it undefined (zeros).
	Fill []byte
	// Filters is the chunk filter pipeline of a dense chunked dataset.
	Filters []Filter
	// Sparse makes a structured-chunk sparse dataset
	// (sparse-structured-chunk-format.md §3).
	Sparse bool
	// SectionFilters are a sparse dataset's pipelines of section 0 (the
	// selection) and section 1 (the values); nil entries are unfiltered.
	SectionFilters [][]Filter
	// DontFilterPartial stores a sparse dataset's partial edge chunks
	// unfiltered (the layout's flag).
	DontFilterPartial bool
}

// ErrExists is returned when a created object's name is already taken.
var ErrExists = errors.New("name already exists")

// Default index parameters of new chunked layouts, libhdf5's defaults
// (H5D_FARRAY_*, H5D_EARRAY_*, H5D_BT2_* in H5Dpkg.h).
var (
	newFixedArrayPageBits = uint8(10)
	newExtensibleArray    = eaParams{maxBits: 32, indexElems: 4, minPointers: 4, minElems: 16, pageBits: 10}
	newBtree2             = bt2Params{nodeSize: 2048, splitPct: 100, mergePcnt: 40}
)

// CreateDataset makes the dataset name in the group at parentPath: a new
// object header at the end of file (version 2; dataspace, datatype, fill
// value, layout and pipeline messages) and a link to it in the group, in
// whatever storage the group uses. A name already in the group is an
// error (ErrExists) and nothing changes. Dense chunked datasets are
// indexed by a v1 B-tree (layout version 3, as libhdf5 writes by
// default); sparse ones by a fixed array (no unlimited dimension), an
// extensible array (one) or a v2 B-tree (more), created with the first
// chunk written. Write the elements afterwards with WriteAt, WriteChunk
// or WriteSparseChunk.
func (tx *Tx) CreateDataset(parentPath, name string, spec DatasetSpec) error {
	if err := tx.check(); err != nil {
		return err
	}
	path := strings.TrimSuffix(parentPath, "/") + "/" + name
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: creating %s: %s", tx.w.name, path, fmt.Sprintf(format, args...))
	}
	if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
		return fail("invalid name %q", name)
	}
	parent, err := tx.w.f.Open(parentPath)
	if err != nil {
		return err
	}
	if parent.Kind() != KindGroup {
		return fail("%s is not a group", parentPath)
	}
	if _, err := parent.Link(name); err == nil {
		return fmt.Errorf("%s: %s: %w", tx.w.name, path, ErrExists)
	}
	if err := tx.insertLinkCheck(parent); err != nil {
		return fmt.Errorf("%s: creating %s: %w", tx.w.name, path, err)
	}
	msgs, contig, err := tx.datasetMessages(&spec)
	if err != nil {
		return fmt.Errorf("%s: creating %s: %w", tx.w.name, path, err)
	}
	if contig != nil {
		if err := tx.fail(tx.fillContiguous(contig.addr, contig.size, spec.Fill)); err != nil {
			return err
		}
	}
	oh := encodeObjectHeader(msgs)
	addr := tx.alloc(uint64(len(oh)))
	if err := tx.write(addr, oh); err != nil {
		return tx.fail(err)
	}
	return tx.fail(tx.insertLink(parent, name, addr))
}

// headerMessage is one message of an object header being built.
type headerMessage struct {
	typ   uint16
	flags uint8
	data  []byte
}

// datasetMessages validates spec and encodes the messages of its object
// header. For a contiguous dataset it allocates the storage and returns
// its extent, to be filled by the caller.
func (tx *Tx) datasetMessages(spec *DatasetSpec) ([]headerMessage, *layout, error) {
	f := tx.w.f
	rank := len(spec.Dims)
	if rank < 1 || rank > maxRank {
		return nil, nil, fmt.Errorf("rank %d (want 1..%d)", rank, maxRank)
	}
	if spec.Type == nil {
		return nil, nil, fmt.Errorf("no datatype")
	}
	maxDims := spec.MaxDims
	if maxDims == nil {
		maxDims = spec.Dims
	}
	if len(maxDims) != rank {
		return nil, nil, fmt.Errorf("%d maximum dimensions for rank %d", len(maxDims), rank)
	}
	for i, d := range spec.Dims {
		if d > maxDims[i] {
			return nil, nil, fmt.Errorf("dimension %d: %d exceeds its maximum %d", i, d, maxDims[i])
		}
	}
	dt, err := encodeDatatype(spec.Type)
	if err != nil {
		return nil, nil, err
	}
	es := uint64(spec.Type.Size)
	if spec.Fill != nil && uint64(len(spec.Fill)) != es {
		return nil, nil, fmt.Errorf("fill value of %d bytes for a %d-byte type", len(spec.Fill), es)
	}
	if spec.Chunk == nil && (spec.Sparse || spec.Filters != nil || !equalDims(spec.Dims, maxDims)) {
		return nil, nil, fmt.Errorf("needs chunk dimensions (sparse, filtered or growable)")
	}
	if spec.Chunk != nil && len(spec.Chunk) != rank {
		return nil, nil, fmt.Errorf("%d chunk dimensions for rank %d", len(spec.Chunk), rank)
	}
	chunkBytes := es
	for _, c := range spec.Chunk {
		hi, lo := bits.Mul64(chunkBytes, c)
		if c == 0 || c > 1<<32-1 || hi != 0 || lo > 1<<32-1 {
			return nil, nil, fmt.Errorf("chunk %v of %d-byte elements: empty or over 4 GiB", spec.Chunk, es)
		}
		chunkBytes = lo
	}
	alloc, fillTime := uint8(3), uint8(2) // incremental allocation, fill if set (libhdf5's chunked defaults)
	l := &layout{version: 3, chunk: spec.Chunk, addr: undefAddr}
	var contig *layout
	switch {
	case spec.Sparse:
		if spec.Filters != nil {
			return nil, nil, fmt.Errorf("a sparse dataset takes section filters, not a chunk pipeline")
		}
		l.version, l.class = 5, layoutStructured
		l.stc = &stcLayout{typ: stcSparse, elemSize: es, sections: 2, meta: []uint8{0}}
		l.stc.csl = chunkSizeWidth(chunkBytes)
		if spec.DontFilterPartial {
			l.stc.flags |= stcDontFilterPartial
		}
		switch unlimitedDims(maxDims) {
		case 0:
			l.index, l.pageBits = IndexFixedArray, newFixedArrayPageBits
		case 1:
			l.index, l.ea = IndexExtensibleArr, newExtensibleArray
		default:
			l.index, l.bt2 = IndexBtreeV2, newBtree2
		}
	case spec.Chunk != nil:
		l.class, l.index = layoutChunked, IndexBtreeV1
	default:
		n := es
		for _, d := range spec.Dims {
			hi, lo := bits.Mul64(n, d)
			if hi != 0 || lo > 1<<48 {
				return nil, nil, fmt.Errorf("contiguous storage of %v elements overflows", spec.Dims)
			}
			n = lo
		}
		l.class, l.size = layoutContiguous, n
		contig = l
		alloc, fillTime = 1, 2 // early allocation: the storage is written now
	}
	var msgs []headerMessage
	if spec.Filters != nil {
		p, err := encodePipeline(setLocalFilters(spec.Filters, es))
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, headerMessage{msgPipeline, 0, p})
	}
	if spec.SectionFilters != nil {
		if !spec.Sparse {
			return nil, nil, fmt.Errorf("section filters on a dataset that is not sparse")
		}
		if len(spec.SectionFilters) > 2 {
			return nil, nil, fmt.Errorf("%d section pipelines for 2 sections", len(spec.SectionFilters))
		}
		secs := make([][]Filter, len(spec.SectionFilters))
		for i, p := range spec.SectionFilters {
			if p != nil {
				secs[i] = setLocalFilters(p, []uint64{1, es}[i])
			}
		}
		p, err := encodeSectionPipeline(secs)
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, headerMessage{msgSectionPipeline, 0, p})
	}
	if contig != nil { // allocated last: nothing can fail after
		l.addr = tx.alloc(l.size)
	}
	lb, err := encodeLayout(l, f.so, f.sl, es)
	if err != nil {
		return nil, nil, err
	}
	return append([]headerMessage{
		{msgDataspace, 0, encodeDataspace(f.sl, spec.Dims, maxDims)},
		{msgDatatype, msgFlagConstant, dt},
		{msgFillValue, msgFlagConstant, encodeFillValue(alloc, fillTime, spec.Fill)},
		{msgLayout, 0, lb},
	}, msgs...), contig, nil
}

// setLocalFilters fills in the client data libhdf5's set_local callbacks
// would (shuffle's element size) and deflate's level when none is given
// (6, as h5py; libhdf5 refuses a deflate filter without one).
func setLocalFilters(p []Filter, elemSize uint64) []Filter {
	out := make([]Filter, len(p))
	for i, f := range p {
		switch {
		case f.ID == FilterShuffle && len(f.ClientData) == 0:
			f.ClientData = []uint32{uint32(elemSize)}
		case f.ID == FilterDeflate && len(f.ClientData) == 0:
			f.ClientData = []uint32{6}
		}
		out[i] = f
	}
	return out
}

func equalDims(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func unlimitedDims(maxDims []uint64) int {
	n := 0
	for _, m := range maxDims {
		if m == unlimited {
			n++
		}
	}
	return n
}

// fillContiguous writes n bytes of storage at addr, every element the
// fill value (zeros when none).
func (tx *Tx) fillContiguous(addr, n uint64, fill []byte) error {
	const piece = 1 << 20
	buf := make([]byte, min(n, piece))
	if len(fill) > 0 {
		for i := 0; i+len(fill) <= len(buf); i += len(fill) {
			copy(buf[i:], fill)
		}
	}
	step := uint64(len(buf))
	if len(fill) > 0 {
		step -= step % uint64(len(fill))
	}
	for off := uint64(0); off < n; off += step {
		if err := tx.write(addr+off, buf[:min(step, n-off)]); err != nil {
			return err
		}
	}
	return nil
}

// encodeObjectHeader encodes a version 2 object header ("OHDR") of one
// chunk holding msgs, the inverse of readObjectHeader: no times, no
// attribute phase change values, no creation order; the chunk size field
// as wide as it needs.
func encodeObjectHeader(msgs []headerMessage) []byte {
	var body []byte
	for _, m := range msgs {
		body = append(body, byte(m.typ))
		body = binary.LittleEndian.AppendUint16(body, uint16(len(m.data)))
		body = append(body, m.flags)
		body = append(body, m.data...)
	}
	flags, width := uint8(0), 1
	for width < 8 && uint64(len(body)) >= 1<<(8*width) {
		flags++
		width *= 2
	}
	b := append([]byte("OHDR"), 2, flags)
	b = appendUintN(b, uint64(len(body)), width)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, lookup3(b, 0))
}

// NumberType returns a little-endian number type for CreateDataset: an
// IEEE 754 float of 4 or 8 bytes (float), else a two's complement
// (signed) or unsigned integer of 1, 2, 4 or 8 bytes.
func NumberType(float, signed bool, size int) (*Datatype, error) {
	t := &Datatype{Version: 1, Size: size, ByteOrder: LittleEndian, Precision: 8 * size}
	switch {
	case float && size == 4:
		t.Class, t.Float = ClassFloat, FloatLayout{SignPos: 31, ExpPos: 23, ExpSize: 8, MantSize: 23, Bias: 127, Norm: 2}
	case float && size == 8:
		t.Class, t.Float = ClassFloat, FloatLayout{SignPos: 63, ExpPos: 52, ExpSize: 11, MantSize: 52, Bias: 1023, Norm: 2}
	case !float && (size == 1 || size == 2 || size == 4 || size == 8):
		t.Class, t.Signed = ClassFixedPoint, signed
	default:
		return nil, fmt.Errorf("no %d-byte number type (float %v)", size, float)
	}
	t.pack = t.buildPack()
	return t, nil
}

// ParseFilters parses a filter pipeline written as registered filter
// names with optional client data, "shuffle,deflate=4" or "zstd=3":
// each "name[=v[:v...]]" in order. A filter h5core cannot encode is an
// error naming it. Element sizes (shuffle) are filled in by
// CreateDataset.
func ParseFilters(spec string) ([]Filter, error) {
	if spec == "" {
		return nil, nil
	}
	var out []Filter
	for _, part := range strings.Split(spec, ",") {
		name, args, _ := strings.Cut(strings.TrimSpace(part), "=")
		var c *filterCodec
		for _, r := range filterRegistry {
			if r.name == name {
				c = r
			}
		}
		if c == nil || c.encode == nil {
			return nil, fmt.Errorf("filter %q: not a filter h5core can write", name)
		}
		f := Filter{ID: c.id}
		if args != "" {
			for _, a := range strings.Split(args, ":") {
				v, err := strconv.ParseUint(a, 10, 32)
				if err != nil {
					return nil, fmt.Errorf("filter %q: client data %q is not an unsigned 32-bit integer", name, a)
				}
				f.ClientData = append(f.ClientData, uint32(v))
			}
		}
		out = append(out, f)
	}
	return out, nil
}
