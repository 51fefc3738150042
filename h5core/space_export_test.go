package h5core

// ReleaseFreed makes the space tx has freed so far reusable at once, as
// if the transaction had committed: what the allocator must never do,
// for the crash harness to show it catches it (h5core_test).
func ReleaseFreed(tx *Tx) {
	for _, e := range tx.freed {
		tx.w.space.add(e)
	}
	tx.freed = nil
}
