package h5core

import "encoding/binary"

// fillValue is a decoded fill value message (0x0005) or old fill value
// message (0x0004).
type fillValue struct {
	defined   bool   // a value was given (otherwise zeros)
	value     []byte // the fill bytes when defined (may be empty: "default")
	allocTime uint8
	fillTime  uint8
}

// undefFillSize is the size libhdf5 writes (as -1) for an undefined fill
// value in old fill value messages.
const undefFillSize = 0xFFFFFFFF

func (f *File) parseFillValue(b []byte, at uint64) (*fillValue, error) {
	d := f.decoder(b, at)
	fv := &fillValue{}
	version := d.u8()
	switch version {
	case 1, 2:
		fv.allocTime = d.u8()
		fv.fillTime = d.u8()
		// As libhdf5 reads versions 1 and 2: the size and value follow
		// only when the "fill value defined" byte is set. Otherwise the
		// fill is undefined, whatever follows (HDF5 1.6 wrote a size of
		// 0xFFFFFFFF there in version 1, later versions nothing).
		if d.u8() != 0 {
			size := d.u32()
			if size == undefFillSize {
				break
			}
			if int64(size) > int64(d.remaining()) {
				return nil, formatErr(at, "fill value size %d exceeds message (%d bytes left)", size, d.remaining())
			}
			fv.value = d.bytes(int(size))
			fv.defined = size > 0
		}
	case 3:
		flags := d.u8()
		fv.allocTime = flags & 3
		fv.fillTime = (flags >> 2) & 3
		if flags&(1<<5) != 0 {
			size := d.u32()
			if int64(size) > int64(d.remaining()) {
				return nil, formatErr(at, "fill value size %d exceeds message (%d bytes left)", size, d.remaining())
			}
			fv.value = d.bytes(int(size))
			fv.defined = true
		}
	default:
		return nil, formatErr(at, "fill value message version %d unknown", version)
	}
	if d.err != nil {
		return nil, d.err
	}
	return fv, nil
}

func (f *File) parseFillValueOld(b []byte, at uint64) (*fillValue, error) {
	d := f.decoder(b, at)
	size := d.u32()
	if int64(size) > int64(d.remaining()) {
		return nil, formatErr(at, "old fill value size %d exceeds message", size)
	}
	v := d.bytes(int(size))
	if d.err != nil {
		return nil, d.err
	}
	return &fillValue{defined: size > 0, value: v}, nil
}

// encodeFillValue encodes a fill value message version 3, the inverse of
// parseFillValue: allocation time, fill time and, when value is not nil,
// the value.
func encodeFillValue(allocTime, fillTime uint8, value []byte) []byte {
	flags := allocTime&3 | (fillTime&3)<<2
	if value == nil {
		return []byte{3, flags}
	}
	b := []byte{3, flags | 1<<5}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(value)))
	return append(b, value...)
}
