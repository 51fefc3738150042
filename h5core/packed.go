package h5core

// IsPackedLE reports whether stored elements already are their packed
// little-endian form, so that raw bytes need no conversion.
func (t *Datatype) IsPackedLE() bool {
	ops := t.packOps()
	return len(ops) == 1 && ops[0].kind == packCopy && ops[0].size == t.Size
}
