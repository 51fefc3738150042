package h5core

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// corpusObject is one entry of a corpus JSON (testdata/gen.py documents
// every key); only the keys the tests compare are decoded.
type corpusObject struct {
	Path        string                     `json:"path"`
	Kind        string                     `json:"kind"`
	Target      string                     `json:"target"`
	SameAs      string                     `json:"same_object_as"`
	Links       []string                   `json:"links"`
	Attributes  map[string]json.RawMessage `json:"attributes"`
	Space       string                     `json:"space"`
	Shape       []uint64                   `json:"shape"`
	MaxShape    []*uint64                  `json:"maxshape"`
	Layout      string                     `json:"layout"`
	Chunks      []uint64                   `json:"chunks"`
	ChunkIndex  string                     `json:"chunk_index"`
	Filters     []corpusFilter             `json:"filters"`
	FillHex     *string                    `json:"fill_value_stored_hex"`
	FillDefined string                     `json:"fill_value_defined"`
	ChunkList   [][]uint64                 `json:"chunk_list"`
	StoredSHA   string                     `json:"stored_sha256"`
	Values      json.RawMessage            `json:"values"`
	H5Class     string                     `json:"h5type_class"`
}

type corpusFilter struct {
	ID       uint16   `json:"id"`
	CDValues []uint32 `json:"cd_values"`
}

type corpusAttr struct {
	Shape []uint64        `json:"shape"`
	Class string          `json:"h5type_class"`
	Value json.RawMessage `json:"value"`
}

// corpusIndexName maps the generator's chunk index names to h5core's.
var corpusIndexName = map[string]string{
	"btree_v1": "v1_btree", "single_chunk": "single_chunk", "implicit": "implicit",
	"fixed_array": "fixed_array", "extensible_array": "extensible_array", "btree_v2": "v2_btree",
}

// TestCorpus compares h5core with everything libhdf5 reported about the
// package's own corpus (testdata/corpus, made by testdata/gen.py): object
// kinds, links, shapes, layouts, chunk indexes and chunk lists, filters,
// fill values, stored bytes, attribute values and small datasets' values.
func TestCorpus(t *testing.T) {
	jsons, _ := filepath.Glob("testdata/corpus/*.json")
	if len(jsons) == 0 {
		t.Fatal("no corpus: run testdata/gen.py")
	}
	for _, jf := range jsons {
		b, err := os.ReadFile(jf)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			SuperblockVersion int            `json:"superblock_version"`
			Objects           []corpusObject `json:"objects"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		f, err := Open(jf[:len(jf)-len(".json")] + ".h5")
		if err != nil {
			t.Fatal(err)
		}
		if f.SuperblockVersion() != c.SuperblockVersion {
			t.Errorf("%s: superblock version %d, want %d", jf, f.SuperblockVersion(), c.SuperblockVersion)
		}
		for _, want := range c.Objects {
			t.Run(filepath.Base(jf)+want.Path, func(t *testing.T) { checkCorpusObject(t, f, want) })
		}
		f.Close()
	}
}

func checkCorpusObject(t *testing.T, f *File, want corpusObject) {
	if want.Kind == "softlink" || want.Kind == "externallink" {
		parent, name := filepath.Split(want.Path)
		p, err := f.Open(parent)
		if err != nil {
			t.Fatal(err)
		}
		l, err := p.Link(name)
		if err != nil {
			t.Fatal(err)
		}
		if l.Target != want.Target || (want.Kind == "softlink") != (l.Type == LinkSoft) {
			t.Errorf("link %s %q, want %s %q", l.Type, l.Target, want.Kind, want.Target)
		}
		return
	}
	o, err := f.Open(want.Path)
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Kind().String(); got != want.Kind {
		t.Fatalf("kind %s, want %s", got, want.Kind)
	}
	if want.SameAs != "" {
		return
	}
	checkCorpusAttrs(t, o, want.Attributes)
	switch want.Kind {
	case "group":
		links, err := o.Links()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range links {
			got = append(got, l.Name)
		}
		w := append([]string(nil), want.Links...)
		sort.Strings(w)
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("links %q, want %q", got, w)
		}
	case "dataset":
		checkCorpusDataset(t, o, want)
	}
}

func checkCorpusDataset(t *testing.T, o *Object, want corpusObject) {
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	if want.Space == "simple" && fmt.Sprint(ds.Shape()) != fmt.Sprint(want.Shape) {
		t.Errorf("shape %v, want %v", ds.Shape(), want.Shape)
	}
	if (want.Space == "scalar") != ds.IsScalar() || (want.Space == "null") != ds.IsNull() {
		t.Errorf("dataspace kind differs from %s", want.Space)
	}
	for i, m := range want.MaxShape {
		got := ds.MaxShape()[i]
		if (m == nil) != (got == Unlimited) || (m != nil && *m != got) {
			t.Errorf("maxshape %v, want %v", ds.MaxShape(), want.MaxShape)
			break
		}
	}
	if ds.Layout() != want.Layout {
		t.Fatalf("layout %s, want %s", ds.Layout(), want.Layout)
	}
	if want.Layout == "virtual" {
		return
	}
	var ids []corpusFilter
	for _, fl := range ds.Filters {
		ids = append(ids, corpusFilter{fl.ID, fl.ClientData})
	}
	if fmt.Sprint(ids) != fmt.Sprint(want.Filters) && !(len(ids) == 0 && len(want.Filters) == 0) {
		t.Errorf("filters %v, want %v", ids, want.Filters)
	}
	if want.FillHex != nil && want.FillDefined == "user" {
		if fill, _ := ds.FillValue(); hex.EncodeToString(fill) != *want.FillHex {
			t.Errorf("fill %x, want %s", fill, *want.FillHex)
		}
	}
	if want.Layout == "chunked" {
		if fmt.Sprint(ds.ChunkShape()) != fmt.Sprint(want.Chunks) {
			t.Errorf("chunks %v, want %v", ds.ChunkShape(), want.Chunks)
		}
		if got := ds.ChunkIndexKind().String(); got != corpusIndexName[want.ChunkIndex] {
			t.Errorf("chunk index %s, want %s", got, want.ChunkIndex)
		}
		chunks, err := ds.Chunks()
		if err != nil {
			t.Fatal(err)
		}
		var got, exp []string
		for _, c := range chunks {
			got = append(got, fmt.Sprint(c.Offset, c.FilterMask, c.Addr, c.StoredSize))
		}
		for _, c := range want.ChunkList {
			r := len(c) - 3
			exp = append(exp, fmt.Sprint(c[:r], c[r], c[r+1], c[r+2]))
		}
		sort.Strings(got)
		sort.Strings(exp)
		if fmt.Sprint(got) != fmt.Sprint(exp) {
			t.Errorf("chunk list differs: %d chunks, want %d", len(got), len(exp))
		}
	}
	if want.StoredSHA != "" {
		buf := make([]byte, ds.Size())
		_, err := ds.ReadAt(buf, 0)
		if errors.Is(err, ErrUnsupported) {
			t.Skipf("not implemented in h5core: %v", err)
		}
		if err != nil && len(buf) > 0 {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(buf); hex.EncodeToString(sum[:]) != want.StoredSHA {
			t.Errorf("stored bytes differ from libhdf5's")
		}
	}
	if len(want.Values) > 0 && string(want.Values) != "null" && comparableClass(want.H5Class) {
		vals, err := ds.ReadValues(0, ds.NumElements())
		if err != nil {
			t.Fatal(err)
		}
		if msg := corpusSameValues(vals, want.Values, len(ds.Shape())); msg != "" {
			t.Errorf("values: %s", msg)
		}
	}
}

// comparableClass says whether values of a class are compared: numbers,
// strings, enums, compounds, arrays, opaque and bitfields. References
// (which the generator records as target paths) are checked elsewhere.
func comparableClass(c string) bool {
	return c != "REFERENCE" && c != "TIME" && c != ""
}

func checkCorpusAttrs(t *testing.T, o *Object, want map[string]json.RawMessage) {
	attrs, err := o.Attributes()
	if err != nil {
		t.Fatalf("attributes: %v", err)
	}
	if len(attrs) != len(want) {
		t.Errorf("%d attributes, want %d", len(attrs), len(want))
	}
	for _, a := range attrs {
		raw, ok := want[a.Name]
		if !ok {
			t.Errorf("unexpected attribute %q", a.Name)
			continue
		}
		var w corpusAttr
		if err := json.Unmarshal(raw, &w); err != nil {
			t.Fatal(err)
		}
		if !comparableClass(w.Class) || a.Null {
			continue
		}
		v, err := a.Value()
		if err != nil {
			t.Errorf("attribute %q: %v", a.Name, err)
			continue
		}
		vals := []any{v}
		if a.Shape != nil {
			vals = v.([]any)
		}
		if msg := corpusSameValues(vals, w.Value, len(a.Shape)); msg != "" {
			t.Errorf("attribute %q: %s", a.Name, msg)
		}
	}
}

// sameValues compares h5core values (row-major) with the generator's JSON
// values (nested lists, or a bare value for scalars); "" means equal.
func corpusSameValues(got []any, want json.RawMessage, rank int) string {
	d := json.NewDecoder(bytes.NewReader(want))
	d.UseNumber()
	var w any
	if err := d.Decode(&w); err != nil {
		return err.Error()
	}
	var flat []any
	flatten(w, &flat, rank)
	if len(flat) != len(got) {
		return fmt.Sprintf("%d values, want %d", len(got), len(flat))
	}
	for i := range got {
		if !corpusSameValue(got[i], flat[i]) {
			return fmt.Sprintf("element %d = %#v, want %v", i, got[i], flat[i])
		}
	}
	return ""
}

// flatten collects the elements of nested JSON lists rank levels deep
// (the dataset's rank); deeper lists are array or sequence values.
func flatten(v any, out *[]any, rank int) {
	l, ok := v.([]any)
	if rank == 0 || !ok {
		*out = append(*out, v)
		return
	}
	for _, e := range l {
		flatten(e, out, rank-1)
	}
}

// sameValue compares one h5core value with its JSON form.
func corpusSameValue(got, want any) bool {
	switch g := got.(type) {
	case int64:
		return fmt.Sprint(want) == strconv.FormatInt(g, 10)
	case uint64:
		return fmt.Sprint(want) == strconv.FormatUint(g, 10)
	case float32:
		return corpusSameFloat(float64(g), want)
	case float64:
		return corpusSameFloat(g, want)
	case string:
		return want == g
	case []byte:
		return want == hex.EncodeToString(g)
	case EnumValue:
		return fmt.Sprint(want) == strconv.FormatInt(g.Value, 10)
	case Compound:
		m, ok := want.(map[string]any)
		if !ok || len(m) != len(g) {
			return false
		}
		for _, fv := range g {
			if !corpusSameValue(fv.Value, m[fv.Name]) {
				return false
			}
		}
		return true
	case []any:
		var flat []any
		flatten(want, &flat, 8)
		if len(flat) != len(g) {
			return false
		}
		for i := range g {
			if !corpusSameValue(g[i], flat[i]) {
				return false
			}
		}
		return true
	}
	return false
}

func corpusSameFloat(g float64, want any) bool {
	switch w := want.(type) {
	case string:
		switch w {
		case "NaN":
			return math.IsNaN(g)
		case "Infinity":
			return math.IsInf(g, 1)
		case "-Infinity":
			return math.IsInf(g, -1)
		}
	case json.Number:
		f, err := w.Float64()
		return err == nil && f == g
	}
	return false
}
