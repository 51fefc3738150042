package h5core

import (
	"bytes"
	"compress/bzip2"
	"fmt"
	"io"
)

// FilterBzip2 is the registered id of the BZip2 filter (PyTables, the HDF
// Group's hdf5-filter-plugin).
const FilterBzip2 = 307

func init() { registerFilter(FilterBzip2, "bzip2", decodeBzip2, nil) }

// decodeBzip2 undoes the BZip2 filter: the chunk is one bzip2 stream (cd[0],
// the block size 1-9, only matters when compressing). It never decodes more
// than cap(out) bytes: a stream that would is an error.
func decodeBzip2(_ []uint32, in, out []byte) ([]byte, error) {
	r := bzip2.NewReader(bytes.NewReader(in))
	buf := out[:cap(out)]
	n := 0
	for {
		if n == len(buf) {
			// the end of the stream (and its checksum) must come next
			var extra [1]byte
			m, err := r.Read(extra[:])
			if m > 0 {
				return nil, fmt.Errorf("bzip2 stream decodes to more than the %d bytes expected", cap(out))
			}
			if err != io.EOF {
				return nil, fmt.Errorf("bzip2: stream does not end after %d bytes: %v", n, err)
			}
			return buf, nil
		}
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return buf[:n], nil
		}
		if err != nil {
			return nil, fmt.Errorf("bzip2: %w", err)
		}
	}
}
