package table

import (
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// benchColumn opens a column of the shared corpus' million-row table.
func benchColumn(b *testing.B, name string) *Column {
	f, err := h5core.Open(fixtureDir + "/large_stream.h5")
	if err != nil {
		b.Skip("large_stream.h5 absent: ", err)
	}
	b.Cleanup(func() { f.Close() })
	tb, err := Open(f, "/stream", Lenient)
	if err != nil {
		b.Fatal(err)
	}
	c := tb.Column(name)
	if c == nil {
		b.Fatalf("no column %s", name)
	}
	return c
}

// BenchmarkReadRaw reads a float32 column chunk by chunk as the .raw view
// does.
func BenchmarkReadRaw(b *testing.B) {
	c := benchColumn(b, "value")
	buf := make([]byte, c.ChunkRows*int64(c.ElemSize))
	b.SetBytes(c.t.NRows * int64(c.ElemSize))
	for b.Loop() {
		for s := int64(0); s < c.t.NRows; s += c.ChunkRows {
			n := min(c.ChunkRows, c.t.NRows-s)
			if err := c.ReadRaw(s, n, buf); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRead reads the same column as Arrow arrays with nulls.
func BenchmarkRead(b *testing.B) {
	c := benchColumn(b, "value")
	b.SetBytes(c.t.NRows * int64(c.ElemSize))
	for b.Loop() {
		for s := int64(0); s < c.t.NRows; s += c.ChunkRows {
			a, err := c.Read(s, min(c.ChunkRows, c.t.NRows-s))
			if err != nil {
				b.Fatal(err)
			}
			a.Release()
		}
	}
}
