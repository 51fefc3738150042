package h5core

// AppendPackedLE appends n elements of src, as stored in the file, as
// packed little-endian bytes (see WriteRaw): PackedSize bytes each.
func (t *Datatype) AppendPackedLE(dst, src []byte, n int) []byte {
	return t.toPackedLE(dst, src, n)
}

// IsPackedLE reports whether stored elements already are their packed
// little-endian form, so that raw bytes need no conversion.
func (t *Datatype) IsPackedLE() bool {
	ops := t.packOps()
	return len(ops) == 1 && ops[0].kind == packCopy && ops[0].size == t.Size
}
