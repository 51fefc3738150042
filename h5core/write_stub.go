package h5core

import "fmt"

func (tx *Tx) newBtree2Writer(d *dsWriter) (chunkIndexWriter, error) {
	return nil, fmt.Errorf("v2 B-tree chunk index: %w for writing", ErrUnsupported)
}
