// Package duckdbtest checks the Parquet and CSV views with DuckDB. It is a
// module of its own so that the h5fs module (and binary) does not depend
// on DuckDB; run it with `cd arrowexport/duckdbtest && go test`.
package duckdbtest
