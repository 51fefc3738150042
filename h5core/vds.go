package h5core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// VDSPrefixEnv is the environment variable libhdf5 (and h5core) search for
// the source files of virtual datasets first (see ExtPrefixEnv).
const VDSPrefixEnv = "HDF5_VDS_PREFIX"

// Bounds on what one virtual dataset may ask of a reader.
const (
	maxVDSMappings = 1 << 16 // mappings of one dataset
	maxVDSPairs    = 1 << 22 // merged runs of all its mappings
)

// vdsMapping is one entry of a virtual dataset's mapping list: source
// elements (a selection of a dataset in a file) copied to virtual ones.
type vdsMapping struct {
	file, dset string // source file ("." = the virtual dataset's own) and dataset
	src, virt  []byte // the serialized selections
	at         uint64 // where the heap block was read, for errors
}

// vdsPair maps n consecutive virtual elements (row-major index) to n
// consecutive elements of one source dataset.
type vdsPair struct {
	virt, src, n uint64
	ds           *Dataset
}

// vdsState is a virtual dataset's mapping, resolved once: sources opened,
// selections paired into runs sorted by virtual position.
type vdsState struct {
	once  sync.Once
	pairs []vdsPair
	dims  []uint64 // the extent, grown by unlimited mappings
	err   error
}

// parseVDSMappings reads the global heap block of a virtual layout:
// version 0 or 1, the entry count, then per entry the source file and
// dataset names and the source and virtual selections, then a checksum.
func (f *File) parseVDSMappings(l *layout) ([]vdsMapping, error) {
	b, err := f.globalHeapObject(l.addr, l.vdsIndex)
	if err != nil {
		return nil, err
	}
	if err := verifyChecksum(b, l.addr, "virtual dataset mapping"); err != nil {
		return nil, err
	}
	return f.parseVDSBlock(b[:len(b)-4], l.addr)
}

// Flags of an entry of a version 1 mapping block (libhdf5 2.0, file format
// 4.0), which stores each repeated name once.
const (
	vdsFileShared = 0x01 // the source file name is that of an earlier entry, by index
	vdsDsetShared = 0x02 // the source dataset name is that of an earlier entry, by index
	vdsSameFile   = 0x04 // the source file is the virtual dataset's own (".")
	vdsAllFlags   = vdsFileShared | vdsDsetShared | vdsSameFile
)

// parseVDSBlock decodes a mapping block without its checksum.
func (f *File) parseVDSBlock(b []byte, at uint64) ([]vdsMapping, error) {
	d := f.decoder(b, at)
	version := d.u8()
	if d.err == nil && version > 1 {
		return nil, &unsupportedError{fmt.Sprintf("virtual dataset mapping block version %d not supported", version)}
	}
	n := d.length()
	if d.err == nil && n > maxVDSMappings {
		return nil, formatErr(at, "virtual dataset with %d mappings (at most %d)", n, maxVDSMappings)
	}
	var maps []vdsMapping
	// name reads a name stored inline, or shared with an earlier entry.
	name := func(i uint64, shared bool, pick func(*vdsMapping) string) string {
		if !shared {
			return d.cstring()
		}
		j := d.length()
		if d.err == nil && j >= i {
			d.fail("virtual dataset mapping %d shares the name of mapping %d, not an earlier one", i, j)
		}
		if d.err != nil {
			return ""
		}
		return pick(&maps[j])
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		var flags byte
		if version == 1 {
			if flags = d.u8(); d.err == nil && flags&^vdsAllFlags != 0 {
				return nil, formatErr(d.addr(), "virtual dataset mapping %d has unknown flags %#x", i, flags)
			}
		}
		m := vdsMapping{at: at}
		if flags&vdsSameFile != 0 {
			m.file = "."
		} else {
			m.file = name(i, flags&vdsFileShared != 0, func(m *vdsMapping) string { return m.file })
		}
		m.dset = name(i, flags&vdsDsetShared != 0, func(m *vdsMapping) string { return m.dset })
		for _, sel := range []*[]byte{&m.src, &m.virt} {
			if d.err != nil {
				break
			}
			k, err := selectionLen(d.b[d.pos:])
			if err != nil {
				return nil, formatErr(d.addr(), "virtual dataset mapping %d: %v", i, err)
			}
			*sel = d.bytes(k)
		}
		maps = append(maps, m)
	}
	if d.err != nil {
		return nil, d.err
	}
	return maps, nil
}

// selectionLen returns the length of the serialized selection at the start
// of b (H5S_SELECT_SERIALIZE: kind, version, then per kind and version a
// stored length or counts).
func selectionLen(b []byte) (int, error) {
	d := newDecoder(b, 0, 8, 8)
	kind, version := SelectionKind(d.u32()), d.u32()
	n := 0
	switch {
	case (kind == SelectNone || kind == SelectAll) && version == 1:
		n = 16
	case (kind == SelectPoints || kind == SelectHyperslab) && version == 1:
		d.skip(4)
		n = 16 + int(d.u32())
	case kind == SelectHyperslab && version == 2:
		d.skip(1)
		n = 13 + int(d.u32())
	case kind == SelectPoints && version == 2:
		w := int(d.u8())
		rank := int(d.u32())
		cnt := d.uN(w)
		n = 13 + w + int(min(cnt, 1<<40))*rank*w
	case kind == SelectHyperslab && version == 3:
		flags, w := d.u8(), int(d.u8())
		rank := int(d.u32())
		if flags&1 != 0 {
			n = 14 + rank*4*w
		} else {
			cnt := d.uN(w)
			n = 14 + w + int(min(cnt, 1<<40))*2*rank*w
		}
	default:
		return 0, fmt.Errorf("selection kind %d version %d unknown", kind, version)
	}
	if d.err != nil {
		return 0, d.err
	}
	if n < 0 || n > len(b) {
		return 0, fmt.Errorf("selection of %d bytes, %d left", n, len(b))
	}
	return n, nil
}

// regularUnlimited finds the dimension of a regular hyperslab whose count is
// unlimited (H5S_UNLIMITED) and returns it, the byte offset of its count
// field in sel and the field's width; ok is false for any other selection.
func regularUnlimited(sel []byte) (dim, at, w int, ok bool) {
	if len(sel) < 14 || binary.LittleEndian.Uint32(sel) != uint32(SelectHyperslab) || sel[8]&1 == 0 {
		return 0, 0, 0, false
	}
	var base, rank int
	switch binary.LittleEndian.Uint32(sel[4:]) {
	case 2:
		base, w, rank = 17, 8, int(binary.LittleEndian.Uint32(sel[13:]))
	case 3:
		base, w, rank = 14, int(sel[9]), int(binary.LittleEndian.Uint32(sel[10:]))
	default:
		return 0, 0, 0, false
	}
	if w != 2 && w != 4 && w != 8 { // the widths the encoding allows
		return 0, 0, 0, false
	}
	all := uint64(1)<<(8*uint(w)) - 1 // H5S_UNLIMITED in w bytes (wraps to all ones for 8)
	for k := 0; k < rank; k++ {
		o := base + (4*k+2)*w
		if o < 0 || o+w > len(sel) {
			return 0, 0, 0, false
		}
		if uintLE(sel[o:o+w]) == all {
			return k, o, w, true
		}
	}
	return 0, 0, 0, false
}

// regularField returns field f (0 start, 1 stride, 2 count, 3 block) of
// dimension k of a regular hyperslab whose count of dimension k is at
// countAt.
func regularField(sel []byte, countAt, w, f int) uint64 {
	o := countAt + (f-2)*w
	return uintLE(sel[o : o+w])
}

// withCount returns a copy of sel with the count field at countAt set to n.
func withCount(sel []byte, countAt, w int, n uint64) []byte {
	c := append([]byte(nil), sel...)
	putUint(c[countAt:countAt+w], n, w, false)
	return c
}

// fullBlocks is how many whole blocks of a regular pattern fit in dim.
func fullBlocks(start, stride, block, dim uint64) uint64 {
	if start >= dim || dim-start < block {
		return 0
	}
	if stride == 0 {
		return 1
	}
	return (dim-start-block)/stride + 1
}

// virtualState resolves the dataset's mappings once.
func (ds *Dataset) virtualState() *vdsState {
	st := ds.vds
	st.once.Do(func() { st.err = ds.resolveVirtual(st) })
	return st
}

// maxVDSDepth bounds virtual datasets whose sources are virtual datasets.
const maxVDSDepth = 8

// resolveVirtual opens each mapping's source and pairs the runs of the
// source and virtual selections: source elements in the order of their
// selection go to virtual elements in the order of theirs. A missing
// source file or dataset leaves its virtual elements at the fill value, as
// libhdf5 does. Unlimited mappings (a regular hyperslab of unlimited count
// in both selections) take as many blocks as the source holds now, and
// grow the virtual extent to fit.
func (ds *Dataset) resolveVirtual(st *vdsState) error {
	if ds.vdsDepth > maxVDSDepth {
		return fmt.Errorf("virtual dataset sources nested more than %d deep", maxVDSDepth)
	}
	maps, err := ds.f.parseVDSMappings(ds.layout)
	if err != nil {
		return err
	}
	st.dims = append([]uint64(nil), ds.space.dims...)
	type resolved struct {
		src        *Dataset
		ssel, vsel []byte
		at         uint64 // the mapping block, for errors
	}
	var rs []resolved
	for i, m := range maps {
		if printfName(m.file) || printfName(m.dset) {
			vk, vat, vw, ok := regularUnlimited(m.virt)
			if !ok {
				return formatErr(m.at, "virtual dataset mapping %d: printf-style source names (%s:%s) need an unlimited virtual selection", i, m.file, m.dset)
			}
			// block b of the virtual selection comes from the source
			// named with b; blocks stop at the first source missing
			// (libhdf5's default printf gap of 0)
			start, stride, block := regularField(m.virt, vat, vw, 0), regularField(m.virt, vat, vw, 1), regularField(m.virt, vat, vw, 3)
			for b := uint64(0); ; b++ {
				if b >= maxVDSMappings {
					return fmt.Errorf("virtual dataset mapping %d: more than %d printf-named sources: %w", i, maxVDSMappings, ErrUnsupported)
				}
				file, err := vdsSourceName(m.file, b)
				if err != nil {
					return formatErr(m.at, "virtual dataset mapping %d: source file name: %v", i, err)
				}
				dset, err := vdsSourceName(m.dset, b)
				if err != nil {
					return formatErr(m.at, "virtual dataset mapping %d: source dataset name: %v", i, err)
				}
				src, err := ds.vdsSource(file, dset)
				if errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrNotFound) {
					break
				}
				if err != nil {
					return fmt.Errorf("virtual dataset mapping %d (%s:%s): %w", i, file, dset, err)
				}
				if err := checkVDSSourceType(i, file, dset, src, ds); err != nil {
					return err
				}
				vsel := withCount(m.virt, vat, vw, 1)
				putUint(vsel[vat-2*vw:vat-vw], start+b*stride, vw, false)
				st.dims[vk] = max(st.dims[vk], start+b*stride+block)
				rs = append(rs, resolved{src, m.src, vsel, m.at})
			}
			continue
		}
		file, err := vdsSourceName(m.file, 0)
		if err == nil {
			m.dset, err = vdsSourceName(m.dset, 0)
		}
		if err != nil {
			return formatErr(m.at, "virtual dataset mapping %d: source name: %v", i, err)
		}
		src, err := ds.vdsSource(file, m.dset)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrNotFound) {
			continue // read as the fill value
		}
		if err != nil {
			return fmt.Errorf("virtual dataset mapping %d (%s:%s): %w", i, m.file, m.dset, err)
		}
		if err := checkVDSSourceType(i, m.file, m.dset, src, ds); err != nil {
			return err
		}
		ssel, vsel := m.src, m.virt
		if vk, vat, vw, ok := regularUnlimited(vsel); ok {
			sk, sat, sw, ok := regularUnlimited(ssel)
			if !ok || len(src.Shape()) <= sk {
				return &unsupportedError{fmt.Sprintf("virtual dataset mapping %d: unlimited virtual selection over a limited source selection not supported", i)}
			}
			nb := fullBlocks(regularField(ssel, sat, sw, 0), regularField(ssel, sat, sw, 1), regularField(ssel, sat, sw, 3), src.Shape()[sk])
			ssel, vsel = withCount(ssel, sat, sw, nb), withCount(vsel, vat, vw, nb)
			if nb > 0 && vk < len(st.dims) {
				start, stride, block := regularField(vsel, vat, vw, 0), regularField(vsel, vat, vw, 1), regularField(vsel, vat, vw, 3)
				st.dims[vk] = max(st.dims[vk], start+(nb-1)*stride+block)
			}
		}
		rs = append(rs, resolved{src, ssel, vsel, m.at})
	}
	for i, r := range rs {
		vs, err := decodeSelectionBody(ds.f.decoder(r.vsel, r.at), r.at, st.dims)
		if err != nil {
			return fmt.Errorf("virtual dataset mapping %d: virtual selection: %w", i, err)
		}
		ss, err := decodeSelectionBody(ds.f.decoder(r.ssel, r.at), r.at, r.src.Shape())
		if err != nil {
			return fmt.Errorf("virtual dataset mapping %d: source selection: %w", i, err)
		}
		if vs.Len() != ss.Len() {
			return formatErr(r.at, "virtual dataset mapping %d selects %d virtual and %d source elements", i, vs.Len(), ss.Len())
		}
		if st.pairs, err = appendPairs(st.pairs, vs, ss, st.dims, r.src); err != nil {
			return err
		}
	}
	sort.SliceStable(st.pairs, func(a, b int) bool { return st.pairs[a].virt < st.pairs[b].virt })
	return nil
}

// checkVDSSourceType refuses a source whose type differs from the virtual
// dataset's (h5core does not convert).
func checkVDSSourceType(i int, file, dset string, src, ds *Dataset) error {
	if src.Type.Size != ds.Type.Size || src.Type.Class != ds.Type.Class {
		return &unsupportedError{fmt.Sprintf("virtual dataset mapping %d: source %s:%s of type %s, virtual type %s (conversion not supported)", i, file, dset, src.Type, ds.Type)}
	}
	return nil
}

// printfName reports whether a source name holds libhdf5's block
// specifier %b (a name for each block of an unlimited mapping).
func printfName(name string) bool {
	for i := 0; i+1 < len(name); i++ {
		if name[i] == '%' {
			if name[i+1] == 'b' {
				return true
			}
			i++ // "%%" and other pairs
		}
	}
	return false
}

// vdsSourceName expands a source name as libhdf5 does: "%b" is the block
// number in decimal, "%%" a single '%'; any other '%' is an error.
func vdsSourceName(name string, block uint64) (string, error) {
	if !strings.Contains(name, "%") {
		return name, nil
	}
	var sb strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '%' {
			sb.WriteByte(c)
			continue
		}
		if i+1 == len(name) {
			return "", fmt.Errorf("%q ends with a lone %%", name)
		}
		i++
		switch name[i] {
		case '%':
			sb.WriteByte('%')
		case 'b':
			sb.WriteString(strconv.FormatUint(block, 10))
		default:
			return "", fmt.Errorf("%q: format specifier %%%c unknown (only %%b and %%%%)", name, name[i])
		}
	}
	return sb.String(), nil
}

// vdsSource opens a mapping's source dataset: in the virtual dataset's own
// file for ".", else in a file found as external link targets are (with
// HDF5_VDS_PREFIX).
func (ds *Dataset) vdsSource(file, dset string) (*Dataset, error) {
	f := ds.f
	if file != "." {
		var err error
		if f, err = ds.f.relatedFile(file, VDSPrefixEnv); err != nil {
			return nil, err
		}
	}
	o, err := f.Open(dset)
	if err != nil {
		return nil, err
	}
	src, err := o.Dataset()
	if err != nil {
		return nil, err
	}
	src.vdsDepth = ds.vdsDepth + 1
	return src, nil
}

// runList collects a selection's runs as (row-major index, length).
func runList(s *Selection, dims []uint64) ([][2]uint64, error) {
	var out [][2]uint64
	err := s.Runs(func(start []uint64, n uint64) error {
		if len(out) >= maxVDSPairs {
			return fmt.Errorf("virtual dataset selection of more than %d runs: %w", maxVDSPairs, ErrUnsupported)
		}
		flat := uint64(0)
		for k, c := range start {
			flat = flat*dims[k] + c
		}
		if l := len(out); l > 0 && out[l-1][0]+out[l-1][1] == flat {
			out[l-1][1] += n
		} else {
			out = append(out, [2]uint64{flat, n})
		}
		return nil
	})
	return out, err
}

// appendPairs zips the runs of a virtual and a source selection of equal
// size into pairs, merging pairs that continue each other.
func appendPairs(pairs []vdsPair, vs, ss *Selection, vdims []uint64, src *Dataset) ([]vdsPair, error) {
	vr, err := runList(vs, vdims)
	if err != nil {
		return nil, err
	}
	sr, err := runList(ss, src.Shape())
	if err != nil {
		return nil, err
	}
	i, j := 0, 0
	for i < len(vr) && j < len(sr) {
		n := min(vr[i][1], sr[j][1])
		p := vdsPair{virt: vr[i][0], src: sr[j][0], n: n, ds: src}
		if l := len(pairs); l > 0 && pairs[l-1].ds == src && pairs[l-1].virt+pairs[l-1].n == p.virt && pairs[l-1].src+pairs[l-1].n == p.src {
			pairs[l-1].n += n
		} else {
			if len(pairs) >= maxVDSPairs {
				return nil, fmt.Errorf("virtual dataset mapping of more than %d runs: %w", maxVDSPairs, ErrUnsupported)
			}
			pairs = append(pairs, p)
		}
		vr[i][0], vr[i][1], sr[j][0], sr[j][1] = vr[i][0]+n, vr[i][1]-n, sr[j][0]+n, sr[j][1]-n
		if vr[i][1] == 0 {
			i++
		}
		if sr[j][1] == 0 {
			j++
		}
	}
	return pairs, nil
}

// readVirtual reads bytes [off, off+len(p)) of a virtual dataset: the fill
// value, overwritten by every mapped run that overlaps.
func (ds *Dataset) readVirtual(p []byte, off int64) error {
	st := ds.virtualState()
	if st.err != nil {
		return st.err
	}
	fillRepeat(p, ds.fill, off)
	es := uint64(ds.Type.Size)
	if es == 0 || len(p) == 0 {
		return nil
	}
	lo, hi := uint64(off), uint64(off)+uint64(len(p)) // bytes wanted
	first := sort.Search(len(st.pairs), func(i int) bool { return (st.pairs[i].virt+st.pairs[i].n)*es > lo })
	for _, pr := range st.pairs[first:] {
		if pr.virt*es >= hi {
			break
		}
		a, b := max(pr.virt*es, lo), min((pr.virt+pr.n)*es, hi)
		if _, err := pr.ds.ReadAt(p[a-lo:b-lo], int64(pr.src*es+(a-pr.virt*es))); err != nil {
			return fmt.Errorf("virtual dataset source %s: %w", pr.ds.Path, err)
		}
	}
	return nil
}
