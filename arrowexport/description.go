package arrowexport

import (
	"github.com/h5fs/h5fs/h5core"
)

// Description is a dataset's shape, type and storage as h5fs describes
// it, with the same field names everywhere: in `h5fs ls --json`, in a
// directory's .meta.json and in a sparse dataset's .meta.json (README,
// "JSON descriptions").
type Description struct {
	Shape []uint64 `json:"shape"`
	// MaxShape holds null for an unlimited dimension.
	MaxShape []any `json:"maxshape"`
	// Dtype is the stored HDF5 type as h5fs prints it ("int32 BE").
	Dtype string `json:"dtype"`
	// RawDtype is the NumPy type of the elements of the .raw and .npy
	// views: packed little-endian whatever the stored byte order ("<i4"
	// for "int32 BE"); empty when the dataset has no such views.
	RawDtype   string   `json:"raw_dtype,omitempty"`
	Layout     string   `json:"layout"`
	Chunks     []uint64 `json:"chunks,omitempty"`
	ChunkIndex string   `json:"chunk_index,omitempty"`
	Filters    []Filter `json:"filters,omitempty"`
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
	d := &Description{Shape: ds.Shape(), MaxShape: MaxShape(ds), Dtype: ds.Type.String(), Layout: ds.Layout(),
		Filters: Filters(ds.Filters), NetCDFDimension: ds.NetCDFDimension()}
	if a, err := DatasetArray(ds); err == nil && !ds.IsSparse() {
		d.RawDtype = a.Dtype()
	}
	if d.Layout == "chunked" || ds.IsSparse() {
		d.Chunks = ds.ChunkShape()
		d.ChunkIndex = ds.ChunkIndexKind().String()
	}
	return d
}

// RawDtype returns the NumPy type of the packed little-endian elements
// of stored type t, as a table column's .raw view holds them; "" for
// types with no such form (variable length, arrays).
func RawDtype(t *h5core.Datatype) string {
	if !t.IsFixedSize() || t.Size <= 0 || t.Class == h5core.ClassArray {
		return ""
	}
	d, err := npyDescr(t)
	if err != nil {
		return ""
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
// sections' filters and, once its chunks are read, sizes and counts
// (absent when not counted: `h5fs ls` without -v).
type SparseStorage struct {
	ChunkBytes     uint64    `json:"chunk_bytes"`
	StoredChunks   int       `json:"stored_chunks,omitempty"`
	NNZ            uint64    `json:"nnz,omitempty"`
	LogicalBytes   int64     `json:"logical_bytes,omitempty"`
	AllocatedBytes uint64    `json:"allocated_bytes,omitempty"`
	Sections       []Section `json:"sections"`
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

// DescribeSparse returns the storage of sparse dataset ds: with chunks,
// also the sizes summed over its stored chunks (nnz is left to the
// caller, who reads the selections).
func DescribeSparse(ds *h5core.Dataset, chunks []h5core.ChunkInfo) SparseStorage {
	s := SparseStorage{ChunkBytes: uint64(ds.Type.Size), StoredChunks: len(chunks), LogicalBytes: ds.Size()}
	for _, c := range ds.ChunkShape() {
		s.ChunkBytes *= c
	}
	section := func(i int) *Section {
		for len(s.Sections) <= i {
			n := len(s.Sections)
			s.Sections = append(s.Sections, Section{Section: n, Content: sectionContent[min(n, 2)], Filters: []Filter{}})
		}
		return &s.Sections[i]
	}
	section(1)
	for i, p := range ds.SectionFilters {
		section(i).Filters = append(section(i).Filters, Filters(p)...)
	}
	for _, c := range chunks {
		s.AllocatedBytes += c.StoredSize
		for i, sec := range c.Sections {
			section(i).StoredBytes += sec.StoredSize
			section(i).UnfilteredBytes += sec.UnfilteredSize
		}
	}
	return s
}
