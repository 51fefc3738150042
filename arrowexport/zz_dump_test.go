package arrowexport

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

type tc struct {
	b []byte
	p int
}

func (t *tc) uv() uint64 { v, n := binary.Uvarint(t.b[t.p:]); t.p += n; return v }
func (t *tc) str(depth int) {
	last := 0
	for {
		h := t.b[t.p]
		t.p++
		if h == 0 {
			return
		}
		ty := h & 0xf
		d := int(h >> 4)
		id := last + d
		if d == 0 {
			v := t.uv()
			id = int(int64(v>>1) ^ -int64(v&1))
		}
		last = id
		pad := fmt.Sprintf("%*s", depth*2, "")
		switch ty {
		case 5, 6:
			v := t.uv()
			fmt.Printf("%sfield %d i: %d\n", pad, id, int64(v>>1)^-int64(v&1))
		case 8:
			n := int(t.uv())
			fmt.Printf("%sfield %d bin: %x\n", pad, id, t.b[t.p:t.p+n])
			t.p += n
		case 12:
			fmt.Printf("%sfield %d struct\n", pad, id)
			t.str(depth + 1)
		case 1, 2:
			fmt.Printf("%sfield %d bool %d\n", pad, id, ty)
		default:
			panic(fmt.Sprint("type", ty))
		}
	}
}

func TestZZDump(t *testing.T) {
	for _, n := range []int{3, 500000} {
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		for i := range n {
			b.Append(float64(i) - 0.5)
		}
		a := b.NewArray()
		sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
		r := &parquetRenderer{unit: int64(n)}
		s := &captureSink{capture: true}
		fw, err := pqarrow.NewFileWriter(sch, s, r.props(), r.arrowProps())
		if err != nil {
			t.Fatal(err)
		}
		fw.NewRowGroupChecked()
		writeColumnData(fw, a)
		fw.Close()
		buf := s.take()
		foot, _ := parquetFooter(buf)
		body := buf[4 : len(buf)-len(foot)]
		fmt.Println("n", n, "body", len(body))
		p := 0
		for p < len(body) && p < 2000000000 {
			x := &tc{b: body, p: p}
			x.str(0)
			fmt.Printf("header %d bytes, data %x...\n", x.p-p, body[x.p:x.p+12])
			// compressed size field 3
			y := &tc{b: body, p: p}
			_ = y
			var csz int
			{
				z := &tc{b: body, p: p + 1}
				z.uv()
				z.p++
				v := z.uv()
				csz = int(int64(v>>1) ^ -int64(v&1))
			}
			p = x.p + csz
		}
	}
}
