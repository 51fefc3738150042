package arrowexport

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func TestNpyHeader(t *testing.T) {
	for _, tc := range []struct {
		shape []int64
		dtype string
		want  string
	}{
		{nil, "<f8", "{'descr': '<f8', 'fortran_order': False, 'shape': (), }"},
		{[]int64{5}, "|u1", "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }"},
		{[]int64{2, 3}, "<i4", "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"},
		{[]int64{0}, "|S7", "{'descr': '|S7', 'fortran_order': False, 'shape': (0,), }"},
		{[]int64{4}, "[('x', '<f4'), ('y', '<f8')]", "{'descr': [('x', '<f4'), ('y', '<f8')], 'fortran_order': False, 'shape': (4,), }"},
	} {
		n, _ := numElements(tc.shape)
		es := 8
		a := &memArray{shape: tc.shape, dtype: tc.dtype, elemSize: es, data: bytes.Repeat([]byte{7}, int(n)*es)}
		v, err := NewNpyView(a)
		if err != nil {
			t.Fatal(err)
		}
		b := checkView(t, v)
		hl := int(binary.LittleEndian.Uint16(b[8:]))
		if string(b[:8]) != "\x93NUMPY\x01\x00" || (10+hl)%64 != 0 || b[9+hl] != '\n' {
			t.Fatalf("%v: bad preamble %q", tc.shape, b[:10])
		}
		if got := string(bytes.TrimRight(b[10:10+hl], " \n")); got != tc.want {
			t.Fatalf("header %q, want %q", got, tc.want)
		}
		if len(b) != 10+hl+int(n)*es || !bytes.Equal(b[10+hl:], a.data) {
			t.Fatalf("%v: data differs", tc.shape)
		}
	}
}

func TestColumnArrayPartialReads(t *testing.T) {
	_, cols := testTable(777)
	a, err := ColumnArray(rawMemColumn{cols["u16"]})
	if err != nil {
		t.Fatal(err)
	}
	if a.Dtype() != "<u2" || a.ElemSize() != 2 {
		t.Fatalf("dtype %s size %d", a.Dtype(), a.ElemSize())
	}
	v, _ := NewRawView(a)
	if b := checkView(t, v); !bytes.Equal(b, cols["u16"].raw) {
		t.Fatal("raw view differs from the packed values")
	}
	if _, err := ColumnArray(cols["s"]); err == nil {
		t.Fatal("a string column without RawSource has a raw view")
	}
}
