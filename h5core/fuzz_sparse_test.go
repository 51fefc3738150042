package h5core

import (
	"encoding/hex"
	"testing"
)

// FuzzSelection decodes mutated encoded selections against a few chunk
// shapes and walks what decodes: it must never panic, and the runs must
// cover exactly Len positions inside the chunk.
func FuzzSelection(f *testing.F) {
	chunk := []uint64{4, 5}
	for _, s := range []string{
		"01000000 01000000 00000000 18000000 02000000 02000000 00000000 01000000 02000000 03000000",
		"01000000 02000000 02 02000000 0200 0200 0300 0000 0100",
		"02000000 03000000 01 02 02000000 0000 0200 0200 0100 0100 0100 0100 0200",
		"02000000 03000000 00 04 02000000 02000000 00000000 00000000 01000000 01000000 01000000 01000000 02000000 02000000",
		"02000000 01000000 00000000 28000000 02000000 02000000 00000000 00000000 01000000 01000000 01000000 01000000 02000000 02000000",
		"02000000 02000000 01 00000000 02000000 0000000000000000 0100000000000000 0200000000000000 0100000000000000 0100000000000000 0200000000000000 0200000000000000 0100000000000000",
		"03000000 01000000 00000000 00000000",
		"00000000 01000000 00000000 00000000",
	} {
		f.Add(envelope(chunk, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, shape := range [][]uint64{{4, 5}, {3}, {2, 3, 4}} {
			s, err := decodeSelection(b, 0, shape)
			if err != nil {
				continue
			}
			var n uint64
			err = s.Runs(func(start []uint64, k uint64) error {
				for i, v := range start {
					if v >= shape[i] || (i == len(start)-1 && v+k > shape[i]) {
						t.Fatalf("run %v+%d outside %v", start, k, shape)
					}
				}
				n += k
				return nil
			})
			if err != nil || n != s.Len() {
				t.Fatalf("runs cover %d positions, Len %d (%v)", n, s.Len(), err)
			}
			s.Blocks(func(lo, hi []uint64) error { return nil })
			s.CountWithin([]uint64{1, 1, 1}[:len(shape)])
			rows := make([]uint64, shape[0])
			s.CountRows(shape, 0, rows)
			var sum uint64
			for _, c := range rows {
				sum += c
			}
			if sum != s.Len() {
				t.Fatalf("row counts add up to %d, Len %d", sum, s.Len())
			}
		}
	})
}

// FuzzLayoutV5 decodes mutated version-5 layout messages: never a panic,
// and a structured layout that decodes has sane fields.
func FuzzLayoutV5(f *testing.F) {
	for _, s := range []string{
		"0504000100000201050408020100030ac600000000000000",
		"05040001000202010a040802010001" + "3a00" + "2c00000000000000" + "4b00000000000000" + "1000000000000000" + "0000000000000000" + "3000000000000000",
		"050400010000030104040408020100030af610000000000000",
		"05040001000003010404040802010004200404100ac600000000000000",
		"050400010000030105050408020100050008000064283000000000000000",
		"0502000201030404080800000000000000000000000000000000",
	} {
		b, _ := hex.DecodeString(s)
		f.Add(b)
	}
	fl := &File{so: 8, sl: 8}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := fl.parseLayout(b, 0)
		if err != nil || l.class != layoutStructured {
			return
		}
		s := l.stc
		if s.sections < 1 || s.sections > 3 || s.csl < 1 || s.csl > 8 || len(l.chunk) < 1 {
			t.Fatalf("bad structured layout %+v", s)
		}
		if l.index == IndexSingleChunk && len(s.single.stc.offsets) != s.sections {
			t.Fatalf("single chunk record %+v", s.single.stc)
		}
	})
}
