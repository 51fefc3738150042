package h5core

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// externalSlot is one entry of a dataset's External Data Files message:
// the next size bytes of the dataset's raw data (Unlimited: all the rest)
// are in the file name from byte offset on.
type externalSlot struct {
	name         string
	offset, size uint64
}

// maxExternalSlots bounds the slots of one External Data Files message.
const maxExternalSlots = 1 << 16

// parseExternalFiles decodes an External Data Files message (version 1):
// allocated and used slot counts (2 bytes each), the address of the local
// heap holding the file names, then per used slot the name's heap offset,
// the offset in the file and the size (lengths).
func (f *File) parseExternalFiles(b []byte, at uint64) ([]externalSlot, error) {
	d := newDecoder(b, at, f.so, f.sl)
	if v := d.u8(); v != 1 {
		return nil, formatErr(at, "external data files message version %d unknown", v)
	}
	d.skip(3)
	d.u16() // allocated slots
	used := int(d.u16())
	heapAddr := d.offset()
	if d.err != nil {
		return nil, d.err
	}
	if used == 0 || used > maxExternalSlots || used*3*f.sl > d.remaining() {
		return nil, formatErr(at, "external data files message with %d slots in %d bytes", used, d.remaining())
	}
	heap, err := f.readLocalHeap(heapAddr)
	if err != nil {
		return nil, err
	}
	slots := make([]externalSlot, used)
	for i := range slots {
		nameOff := d.length()
		slots[i].offset, slots[i].size = d.length(), d.length()
		if d.err != nil {
			return nil, d.err
		}
		if slots[i].name, err = heap.stringAt(nameOff); err != nil {
			return nil, err
		}
	}
	return slots, nil
}

// externalDataPath is where h5core looks for an external data file: a
// relative name in the folder of the HDF5 file (libhdf5 with the
// "${ORIGIN}" prefix). Absolute names and names leading out of that folder
// are refused: a file must not make h5fs read files beside or above it
// that its folder does not hold.
func (f *File) externalDataPath(name string) (string, error) {
	clean := filepath.Clean(name)
	switch {
	case name == "":
		return "", errors.New("external data file with an empty name")
	case filepath.IsAbs(name):
		return "", fmt.Errorf("external data file %q: absolute names are refused (only files in the HDF5 file's folder are read)", name)
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return "", fmt.Errorf("external data file %q: names leading out of the HDF5 file's folder are refused", name)
	}
	return filepath.Join(filepath.Dir(f.name), clean), nil
}

// readExternal reads bytes [off, off+len(p)) of a dataset whose raw data
// lives in external files, slot after slot; bytes a file lacks (it is
// shorter than its slot) read as zeros, as libhdf5 reads them.
func (ds *Dataset) readExternal(p []byte, off int64) error {
	pos := uint64(0) // where the current slot starts in the dataset
	want, end := uint64(off), uint64(off)+uint64(len(p))
	for _, s := range ds.efl {
		if want >= end {
			return nil
		}
		slotEnd := uint64(math.MaxUint64)
		if s.size != Unlimited && s.size <= math.MaxUint64-pos {
			slotEnd = pos + s.size
		}
		if want < slotEnd {
			n := min(end, slotEnd) - want
			if err := ds.readExternalSlot(s, want-pos, p[want-uint64(off):][:n]); err != nil {
				return err
			}
			want += n
		}
		pos = slotEnd
	}
	if want < end {
		return fmt.Errorf("external data files hold %d bytes, the dataset needs %d", want, end)
	}
	return nil
}

// readExternalSlot reads p from byte at of slot s.
func (ds *Dataset) readExternalSlot(s externalSlot, at uint64, p []byte) error {
	path, err := ds.f.externalDataPath(s.name)
	if err != nil {
		return err
	}
	start := s.offset + at
	if start < s.offset || start > math.MaxInt64 {
		return fmt.Errorf("external data file %s: offset %d+%d out of range", s.name, s.offset, at)
	}
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("external data file %s: %w", s.name, err)
	}
	defer fh.Close()
	n, err := fh.ReadAt(p, int64(start))
	if err != nil && err != io.EOF {
		return fmt.Errorf("external data file %s: %w", s.name, err)
	}
	clear(p[n:])
	return nil
}
