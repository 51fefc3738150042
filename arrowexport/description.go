package arrowexport

import (
	"strconv"
	"strings"

	"github.com/h5fs/h5fs/h5core"
)

// Object describes one member of an HDF5 file, with the same fields
// everywhere: an entry of `h5fs ls --json`'s objects, the object a
// directory's .meta.json is of, and the one each of its links leads to
// (README, "JSON descriptions").
type Object struct {
	Path string `json:"path"`
	// Kind is group, dataset or datatype; softlink, externallink or
	// userlink for a link `h5fs ls` does not follow; error for an object
	// that cannot be read.
	Kind string `json:"kind"`
	// Addr is the address of the object's header: what references to it
	// hold (JSONValue).
	Addr   uint64 `json:"addr,omitempty"`
	Target string `json:"target,omitempty"` // a soft or external link's path
	File   string `json:"file,omitempty"`   // an external link's file
	Error  string `json:"error,omitempty"`
	*Description
	// Sparse is set for sparse datasets: without its counts unless
	// counted (CountSparse).
	Sparse          *SparseStorage `json:"sparse,omitempty"`
	Attributes      []Attribute    `json:"attributes,omitempty"`
	AttributesError string         `json:"attributes_error,omitempty"`
}

// Attribute is one attribute of an object.
type Attribute struct {
	Name  string `json:"name"`
	Dtype string `json:"dtype"` // as Description's
	// Shape is [] for a scalar, null for a null dataspace (no value).
	Shape []uint64  `json:"shape"`
	Value JSONValue `json:"value"` // null when Error says why it cannot be read
	Error string    `json:"error,omitempty"`
}

// DescribeObject describes object o: its kind, address and attributes,
// and a dataset's Description.
func DescribeObject(o *h5core.Object) *Object {
	d := &Object{Path: o.Path, Kind: o.Kind().String(), Addr: o.Addr}
	attrs, err := o.Attributes()
	if err != nil {
		d.AttributesError = err.Error()
	}
	for _, a := range attrs {
		d.Attributes = append(d.Attributes, describeAttribute(a))
	}
	if o.Kind() != h5core.KindDataset {
		return d
	}
	ds, err := o.Dataset()
	if err != nil {
		d.Kind, d.Error = "error", err.Error()
		return d
	}
	d.Description = Describe(ds)
	if ds.IsSparse() {
		d.Sparse = DescribeSparse(ds)
	}
	return d
}

// describeAttribute describes attribute a.
func describeAttribute(a *h5core.Attribute) Attribute {
	d := Attribute{Name: a.Name, Dtype: a.Type.String(), Shape: a.Shape}
	if a.Shape == nil && !a.Null {
		d.Shape = []uint64{}
	}
	v, err := a.Value()
	if err != nil {
		d.Error = err.Error()
		return d
	}
	d.Value = JSONValue{Type: a.Type, Shape: a.Shape, Value: v}
	return d
}

// Description is a dataset's shape, type and storage.
type Description struct {
	// Shape is [] for a scalar, null for a null dataspace (no elements).
	Shape []uint64 `json:"shape"`
	// MaxShape holds null for an unlimited dimension.
	MaxShape []any `json:"maxshape"`
	// Dtype is the stored HDF5 type as h5fs prints it ("int32 BE").
	Dtype       string `json:"dtype"`
	Class       string `json:"class"`
	ElementSize int    `json:"element_size"`
	// RawDtype is the NumPy type of the elements of the .raw and .npy
	// views (a sparse dataset's dense.npy and csr/data.npy): packed
	// little-endian whatever the stored byte order ("<i4" for "int32
	// BE"); empty when the dataset has no such views.
	RawDtype   string   `json:"raw_dtype,omitempty"`
	Layout     string   `json:"layout"`
	Chunks     []uint64 `json:"chunks,omitempty"`
	ChunkIndex string   `json:"chunk_index,omitempty"`
	Filters    []Filter `json:"filters,omitempty"`
	// Fill is what elements never written read as: the file's fill value
	// if FillDefined, else zero bytes' value; absent if it cannot be read.
	Fill        *JSONValue `json:"fill_value,omitempty"`
	FillDefined bool       `json:"fill_value_defined"`
	// NetCDFDimension marks a netCDF-4 dimension without a variable: a
	// dimension scale whose values were never written (all fill).
	NetCDFDimension bool `json:"netcdf_dimension,omitempty"`
}

// Filter is one filter of a pipeline. Name comes from h5core's filter
// registry when the file stores none.
type Filter struct {
	ID         uint16   `json:"id"`
	Name       string   `json:"name"`
	Optional   bool     `json:"optional"`
	Supported  bool     `json:"supported"` // h5fs decodes it
	ClientData []uint32 `json:"cd_values"`
}

// Describe returns the description of dataset ds.
func Describe(ds *h5core.Dataset) *Description {
	d := &Description{Shape: ds.Shape(), MaxShape: MaxShape(ds), Dtype: ds.Type.String(), Class: ds.Type.Class.String(),
		ElementSize: ds.Type.Size, Layout: ds.Layout(), Filters: Filters(ds.Filters), NetCDFDimension: ds.NetCDFDimension()}
	switch {
	case ds.IsScalar():
		d.Shape, d.MaxShape = []uint64{}, []any{}
	case ds.IsNull():
		d.MaxShape = nil
	}
	if _, err := DatasetArray(ds); err == nil || ds.IsSparse() {
		d.RawDtype = RawDtype(ds.Type)
	}
	if d.Layout == "chunked" || ds.IsSparse() {
		d.Chunks = ds.ChunkShape()
		d.ChunkIndex = ds.ChunkIndexKind().String()
	}
	fill, set := ds.FillValue()
	if v, err := ds.File().ElementValue(ds.Type, fill); err == nil {
		d.Fill = &JSONValue{Type: ds.Type, Value: v}
	}
	d.FillDefined = set
	return d
}

// RawDtype returns the NumPy type of the packed little-endian elements
// of stored type t, as the .raw views hold them: numpy.fromfile(raw,
// RawDtype) reads them whatever t's byte order, an array type as a
// subarray type ("(2,3)<i4"); "" for types with no such form (variable
// length, arrays of compounds).
func RawDtype(t *h5core.Datatype) string {
	if !t.IsFixedSize() || t.Size <= 0 {
		return ""
	}
	var dims []string
	for ; t.Class == h5core.ClassArray; t = t.Base {
		for _, d := range t.Dims {
			dims = append(dims, strconv.Itoa(d))
		}
	}
	d, err := npyDescr(t)
	if err != nil || dims != nil && t.Class == h5core.ClassCompound {
		return ""
	}
	if len(dims) == 1 {
		return "(" + dims[0] + ",)" + d
	}
	if dims != nil {
		return "(" + strings.Join(dims, ",") + ")" + d
	}
	return d
}

// MaxShape returns a dataset's maximum shape, null for unlimited.
func MaxShape(ds *h5core.Dataset) []any {
	out := []any{}
	for _, m := range ds.MaxShape() {
		if m == h5core.Unlimited {
			out = append(out, nil)
		} else {
			out = append(out, m)
		}
	}
	return out
}

// Filters describes a filter pipeline.
func Filters(p []h5core.Filter) []Filter {
	var out []Filter
	for i := range p {
		f := &p[i]
		out = append(out, Filter{ID: f.ID, Name: f.DisplayName(), Optional: f.Flags&1 != 0,
			Supported: h5core.FilterDecodable(f.ID), ClientData: f.ClientData})
	}
	return out
}

// SparseStorage is the storage of a structured-chunk sparse dataset: its
// sections' filters and, once counted (CountSparse), its chunks' sizes
// and counts and its defined elements.
type SparseStorage struct {
	ChunkBytes     uint64    `json:"chunk_bytes"`
	StoredChunks   int       `json:"stored_chunks,omitempty"`
	NNZ            uint64    `json:"nnz,omitempty"`
	Density        float64   `json:"density,omitempty"` // NNZ over the elements of the shape
	LogicalBytes   int64     `json:"logical_bytes,omitempty"`
	AllocatedBytes uint64    `json:"allocated_bytes,omitempty"`
	Sections       []Section `json:"sections"`
	Error          string    `json:"error,omitempty"` // why it could not be counted
}

// Section is one section of a sparse dataset's structured chunks: its
// filters and its sizes summed over the stored chunks.
type Section struct {
	Section         int      `json:"section"`
	Content         string   `json:"content"`
	Filters         []Filter `json:"filters"`
	StoredBytes     uint64   `json:"stored_bytes"`
	UnfilteredBytes uint64   `json:"unfiltered_bytes"`
}

// sectionContent names what each section of a structured chunk holds.
var sectionContent = [...]string{"selection", "values", "variable-length"}

// DescribeSparse returns the storage of sparse dataset ds, uncounted:
// its chunks' size and its sections' filters.
func DescribeSparse(ds *h5core.Dataset) *SparseStorage {
	s := &SparseStorage{ChunkBytes: uint64(ds.Type.Size)}
	for _, c := range ds.ChunkShape() {
		s.ChunkBytes *= c
	}
	s.section(1)
	for i, p := range ds.SectionFilters {
		s.section(i).Filters = append(s.section(i).Filters, Filters(p)...)
	}
	return s
}

// section returns section i, adding the sections up to it.
func (s *SparseStorage) section(i int) *Section {
	for len(s.Sections) <= i {
		n := len(s.Sections)
		s.Sections = append(s.Sections, Section{Section: n, Content: sectionContent[min(n, 2)], Filters: []Filter{}})
	}
	return &s.Sections[i]
}
