package h5core

import (
	"encoding/binary"
	"errors"
)

// ApplyUncommitted writes everything tx has made so far to the file, as
// Commit does, but stops before the commit point (the journal stays hot):
// the file a crash just before it leaves, for tests of h5core_test.
func ApplyUncommitted(tx *Tx) error {
	if err := tx.check(); err != nil {
		return err
	}
	return tx.fail(tx.apply())
}

// RootSymbolCache returns the symbol table addresses (B-tree, local
// heap) of the root group's symbol table message and those a version 0
// or 1 superblock caches in its root entry; cached is false when the
// superblock caches none.
func RootSymbolCache(f *File) (msg, cache [2]uint64, cached bool, err error) {
	if f.sb.version > 1 {
		return msg, cache, false, nil
	}
	o, err := f.Open("/")
	if err != nil {
		return msg, cache, false, err
	}
	m := o.oh.find(msgSymbolTable)
	if m == nil {
		return msg, cache, false, o.err(errors.New("no symbol table message"))
	}
	d := f.decoder(m.data, m.addr)
	msg = [2]uint64{d.offset(), d.offset()}
	so := uint64(f.so)
	ent := 24 + 4*so
	if f.sb.version == 1 {
		ent += 4
	}
	b, err := f.read(ent+2*so, 8+2*so)
	if err != nil || binary.LittleEndian.Uint32(b) != 1 {
		return msg, cache, false, err
	}
	c := f.decoder(b[8:], ent+2*so+8)
	cache = [2]uint64{c.offset(), c.offset()}
	return msg, cache, true, c.err
}
