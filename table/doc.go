// Package table reads column tables out of HDF5 files as a consumer sees
// them: HEP001 column-table groups (the spec's §7 table group, §8 columns
// with missing values and categoricals, §10 search indexes, §12
// validation), and, read-only and without HEP001 semantics, the row
// tables of PyTables, pandas HDFStore (format='table'), the HDF5 high-level
// H5TB API and anndata dataframe groups.
//
// Discover walks a file and returns every table; Open opens one group.
// A Table lists its Columns in view order; a Column reads row ranges as
// Arrow arrays (missing values as nulls, categoricals and enums as
// dictionary arrays) or as packed little-endian raw elements. Problems
// with a table are recorded as Findings; in Lenient mode a table is shown
// whenever its rows can be read, in Strict mode any error refuses it.
package table
