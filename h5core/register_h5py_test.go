package h5core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// h5pyFilterCase is one dataset of TestEncodeChunkLibhdf5: libhdf5 creates
// it with the filters (and fills in their client data); h5core encodes its
// chunks; libhdf5 stores them as they are and reads them back.
type h5pyFilterCase struct {
	Name    string    `json:"name"`
	Dtype   string    `json:"dtype"` // numpy: byte order, kind, size ("<i4")
	Type    *nbitType `json:"type,omitempty"`
	Fill    int64     `json:"fill,omitempty"` // a fill value other than 0
	Shape   []uint64  `json:"shape"`
	Chunk   []uint64  `json:"chunk"`
	Filters [][]any   `json:"filters"` // [id, flags, [cd...]]
	data    string    // "ramp", "smooth", "random": see filterCaseData
}

// nbitType narrows an integer type to precision bits at bit offset.
type nbitType struct {
	Precision int `json:"precision"`
	Offset    int `json:"offset"`
}

// filterCaseData returns n elements of the case's dtype, in the file's
// byte order.
func filterCaseData(c *h5pyFilterCase, n int) []byte {
	big := c.Dtype[0] == '>'
	size, _ := strconv.Atoi(c.Dtype[2:])
	out := make([]byte, n*size)
	r := rand.New(rand.NewSource(int64(len(c.Name))))
	for i := 0; i < n; i++ {
		var v uint64
		switch {
		case c.data == "random":
			v = r.Uint64()
		case c.Dtype[1] == 'f' && size == 4:
			v = uint64(math.Float32bits(float32(math.Sin(float64(i) / 50))))
		case c.Dtype[1] == 'f':
			v = math.Float64bits(math.Sin(float64(i) / 50))
		default: // small integers, negative ones for signed types
			x := int64(i*7%5000) - 2000
			if c.Dtype[1] == 'u' {
				x += 2000
			}
			if c.Type != nil { // keep within the precision, sign-extended
				x = x << (64 - c.Type.Precision) >> (64 - c.Type.Precision)
				if c.Dtype[1] == 'u' {
					x &= 1<<c.Type.Precision - 1
				}
			}
			v = uint64(x)
		}
		putUint(out[i*size:], v, size, big)
	}
	return out
}

// TestEncodeChunkLibhdf5 has libhdf5 (Debian's h5py, with the Debian LZ4
// and Blosc plugins) decode chunks that encodeChunk wrote, stored with
// write_direct_chunk, and compares the values.
func TestEncodeChunkLibhdf5(t *testing.T) {
	shuffle := []any{FilterShuffle, 0, []int{}}
	deflate := func(level int) []any { return []any{FilterDeflate, 0, []int{level}} }
	fletcher := []any{FilterFletcher32, 0, []int{}}
	lzf := []any{FilterLZF, 1, []int{}}
	nbit := []any{FilterNBit, 0, []int{}}
	so := func(minbits int) []any { return []any{FilterScaleOffset, 0, []int{2, minbits}} } // integers
	blosc := func(level, shuffle, comp int) []any {                                         // hdf5-blosc fills in cd[0:4]
		return []any{FilterBlosc, 0, []int{0, 0, 0, 0, level, shuffle, comp}}
	}
	cases := []*h5pyFilterCase{
		{Name: "deflate_i4", Dtype: "<i4", Filters: [][]any{deflate(4)}},
		{Name: "deflate_random", Dtype: "<u1", Filters: [][]any{deflate(9)}, data: "random"},
		{Name: "shuffle_deflate_f8", Dtype: "<f8", Filters: [][]any{shuffle, deflate(6)}},
		{Name: "shuffle_deflate_fletcher_be_i8", Dtype: ">i8", Filters: [][]any{shuffle, deflate(1), fletcher}},
		{Name: "fletcher_u2", Dtype: "<u2", Filters: [][]any{fletcher}},
		{Name: "shuffle_odd_i2", Dtype: "<i2", Shape: []uint64{1001}, Chunk: []uint64{77}, Filters: [][]any{shuffle, deflate(6)}},
		{Name: "lzf_i8", Dtype: "<i8", Filters: [][]any{lzf}},
		{Name: "lzf_random", Dtype: "<u4", Filters: [][]any{lzf}, data: "random"},
		{Name: "shuffle_lzf_f4", Dtype: "<f4", Filters: [][]any{shuffle, lzf}},
		{Name: "lz4_i4", Dtype: "<i4", Filters: [][]any{{FilterLZ4, 0, []int{}}}},
		{Name: "lz4_blocks_f8", Dtype: "<f8", Filters: [][]any{{FilterLZ4, 0, []int{1000}}}},
		{Name: "lz4_random", Dtype: "<u8", Filters: [][]any{{FilterLZ4, 0, []int{512}}}, data: "random"},
		{Name: "shuffle_lz4_fletcher_u4", Dtype: ">u4", Filters: [][]any{shuffle, {FilterLZ4, 0, []int{}}, fletcher}},
		{Name: "blosc_blosclz_i4", Dtype: "<i4", Filters: [][]any{blosc(5, 1, bloscCompBloscLZ)}},
		{Name: "blosc_blosclz_f8", Dtype: ">f8", Filters: [][]any{blosc(9, 0, bloscCompBloscLZ)}},
		{Name: "blosc_lz4_i2", Dtype: "<i2", Filters: [][]any{blosc(5, 1, bloscCompLZ4)}},
		{Name: "blosc_lz4hc_bitshuffle_u8", Dtype: "<u8", Filters: [][]any{blosc(5, 2, bloscCompLZ4HC)}},
		{Name: "blosc_zlib_f4", Dtype: "<f4", Filters: [][]any{blosc(4, 1, bloscCompZlib)}},
		{Name: "blosc_zstd_i8", Dtype: "<i8", Filters: [][]any{blosc(3, 1, bloscCompZstd)}},
		{Name: "blosc_snappy_f8", Dtype: "<f8", Filters: [][]any{blosc(5, 1, bloscCompSnappy)}},
		{Name: "blosc_random", Dtype: "<u4", Filters: [][]any{blosc(5, 1, bloscCompBloscLZ)}, data: "random"},
		{Name: "blosc_small_chunks", Dtype: "<i2", Shape: []uint64{200}, Chunk: []uint64{30}, Filters: [][]any{blosc(5, 1, bloscCompLZ4)}},
		{Name: "so_i4", Dtype: "<i4", Filters: [][]any{so(0)}},
		{Name: "so_be_u2", Dtype: ">u2", Filters: [][]any{so(0)}},
		{Name: "so_i8_fill", Dtype: "<i8", Fill: -2000, Filters: [][]any{so(0)}},
		{Name: "so_be_i2_fill", Dtype: ">i2", Fill: 12, Filters: [][]any{so(0)}},
		{Name: "so_fixed_bits_i2", Dtype: "<i2", Filters: [][]any{so(13)}},
		{Name: "so_random_u4", Dtype: "<u4", Filters: [][]any{so(0)}, data: "random"},
		{Name: "so_u1_deflate", Dtype: "<u1", Filters: [][]any{so(0), deflate(5)}},
		{Name: "nbit_i4_12", Dtype: "<i4", Type: &nbitType{12, 0}, Filters: [][]any{nbit}},
		{Name: "nbit_be_u2_10", Dtype: ">u2", Type: &nbitType{10, 0}, Filters: [][]any{nbit}},
		{Name: "nbit_u8_40_deflate", Dtype: "<u8", Type: &nbitType{40, 0}, Filters: [][]any{nbit, deflate(4)}},
		{Name: "nbit_full_i2", Dtype: "<i2", Filters: [][]any{nbit}},
		{Name: "blosc_level0", Dtype: "<i4", Filters: [][]any{blosc(0, 1, bloscCompBloscLZ)}},
	}
	for _, c := range cases {
		if c.Shape == nil {
			c.Shape, c.Chunk = []uint64{2500}, []uint64{1000} // a partial edge chunk
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "filters.h5")
	spec, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "spec.json"), spec)
	runFiltersPy(t, "create", file, filepath.Join(dir, "spec.json"))

	f, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	type chunkRec struct {
		Dataset string   `json:"dataset"`
		Offset  []uint64 `json:"offset"`
		Mask    uint32   `json:"mask"`
		Path    string   `json:"path"`
	}
	var chunks []chunkRec
	want := map[string][]byte{}
	for _, c := range cases {
		obj, err := f.Open("/" + c.Name)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := obj.Dataset()
		if err != nil {
			t.Fatal(err)
		}
		if len(ds.Filters) != len(c.Filters) {
			t.Fatalf("%s: libhdf5 made a pipeline of %d filters, want %d", c.Name, len(ds.Filters), len(c.Filters))
		}
		es, n, cn := int(ds.Type.Size), int(c.Shape[0]), int(c.Chunk[0])
		data := filterCaseData(c, n)
		want[c.Name] = data
		for k := 0; k*cn < n; k++ {
			chunk := make([]byte, cn*es) // edge chunks are stored whole
			copy(chunk, data[k*cn*es:min(n, (k+1)*cn)*es])
			enc, mask, err := encodeChunk(ds.Filters, chunk)
			if err != nil {
				t.Fatalf("%s chunk %d: %v", c.Name, k, err)
			}
			path := filepath.Join(dir, fmt.Sprintf("%s.%d.chunk", c.Name, k))
			writeTestFile(t, path, enc)
			chunks = append(chunks, chunkRec{c.Name, []uint64{uint64(k * cn)}, mask, path})
		}
	}
	f.Close()
	list, err := json.Marshal(chunks)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "chunks.json"), list)
	runFiltersPy(t, "write", file, filepath.Join(dir, "chunks.json"), dir)

	for _, c := range cases {
		got, err := os.ReadFile(filepath.Join(dir, c.Name+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[c.Name]) {
			t.Errorf("%s: libhdf5 read different values from the chunks h5core encoded", c.Name)
		}
	}
}

// runFiltersPy runs testdata/filters_roundtrip.py with Debian's python3.
func runFiltersPy(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("/usr/bin/python3", append([]string{"testdata/filters_roundtrip.py"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("filters_roundtrip.py %s: %v\n%s (scripts/test.sh installs python3-h5py and the filter plugins)", args[0], err, out)
	}
}

func writeTestFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEncodeZstdCLI has the zstd command (Debian's zstd package) decode
// the filter's output: Debian has no HDF5 plugin for filter 32015, whose
// chunks are plain zstd frames.
func TestEncodeZstdCLI(t *testing.T) {
	for name, data := range encodeTestData(100000) {
		enc, _, err := encodeChunk([]Filter{{ID: FilterZstd, ClientData: []uint32{5}}}, data)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("zstd", "-d", "-c")
		cmd.Stdin = bytes.NewReader(enc)
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: zstd -d: %v (scripts/test.sh installs zstd)", name, err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s: zstd -d gives different bytes", name)
		}
	}
}
