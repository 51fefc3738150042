package table

import (
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// TestMalformedFiles walks the malformed corpus: tables may be refused,
// but nothing panics and whatever is shown can be read.
func TestMalformedFiles(t *testing.T) {
	files, _ := filepath.Glob("../../shared/fixtures/malformed/*")
	if len(files) == 0 {
		t.Skip("malformed corpus absent")
	}
	for _, fn := range files {
		f, err := h5core.Open(fn)
		if err != nil {
			continue
		}
		tables, _, _ := Discover(f, Lenient)
		for _, tb := range tables {
			tb.Check(true)
			for _, c := range tb.Columns {
				c.Read(0, tb.NRows)
				if c.ElemSize > 0 {
					c.ReadRaw(0, tb.NRows, make([]byte, tb.NRows*int64(c.ElemSize)))
				}
			}
		}
		f.Close()
	}
}
