package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/h5fs/h5fs/h5core"
)

func runDump(args []string, w io.Writer) error {
	fs := flags("dump")
	raw := fs.Bool("raw", false, "packed little-endian element bytes")
	sparse := fs.Bool("sparse", false, "defined elements of a sparse dataset, as regions")
	locations := fs.Bool("locations-only", false, "with --sparse: regions without data")
	pos, err := parseArgs(fs, args, 2, 2)
	if err != nil {
		return err
	}
	f, err := h5core.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	o, err := f.Open(pos[1])
	if err != nil {
		return err
	}
	ds, err := o.Dataset()
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if *sparse {
		if err := dumpSparse(bw, ds, *locations); err != nil {
			bw.Flush()
			return err
		}
		return bw.Flush()
	}
	if *raw {
		if err := ds.DumpPacked(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := dumpText(bw, ds); err != nil {
		bw.Flush()
		return err
	}
	return bw.Flush()
}

// dumpText prints a dataset the way h5dump -d does: type, shape,
// attributes and values with their row-major indices.
func dumpText(w io.Writer, ds *h5core.Dataset) error {
	fmt.Fprintf(w, "DATASET %q {\n", ds.Path)
	fmt.Fprintf(w, "   DATATYPE  %s\n", ds.Type)
	switch {
	case ds.IsNull():
		fmt.Fprintf(w, "   DATASPACE  NULL\n")
	case ds.IsScalar():
		fmt.Fprintf(w, "   DATASPACE  SCALAR\n")
	default:
		printSimpleDataspace(w, ds)
	}
	attrs, err := ds.Attributes()
	if err != nil {
		fmt.Fprintf(w, "   ATTRIBUTES error: %s\n", printable(err.Error()))
	}
	for _, a := range attrs {
		v, err := a.Value()
		s := ""
		if err != nil {
			s = "error: " + err.Error()
		} else {
			s = h5core.FormatValue(v)
		}
		fmt.Fprintf(w, "   ATTRIBUTE %q %s = %s\n", a.Name, a.Type, printable(s))
	}
	fmt.Fprintf(w, "   DATA {\n")
	shape := ds.Shape()
	idx := make([]uint64, len(shape))
	n := ds.NumElements()
	const block = 4096
	for start := uint64(0); start < n; start += block {
		vals, err := ds.ReadValues(start, min(block, n-start))
		if err != nil {
			return err
		}
		for _, v := range vals {
			var is []string
			for _, i := range idx {
				is = append(is, fmt.Sprint(i))
			}
			fmt.Fprintf(w, "   (%s): %s\n", strings.Join(is, ","), printable(h5core.FormatValue(v)))
			for k := len(idx) - 1; k >= 0; k-- {
				idx[k]++
				if idx[k] < shape[k] {
					break
				}
				idx[k] = 0
			}
		}
	}
	fmt.Fprintf(w, "   }\n}\n")
	return nil
}

// printSimpleDataspace prints the DATASPACE line of a simple dataspace:
// current and maximum dimensions, as h5dump does.
func printSimpleDataspace(w io.Writer, ds *h5core.Dataset) {
	var cur, max []string
	for i, d := range ds.Shape() {
		cur = append(cur, fmt.Sprint(d))
		if m := ds.MaxShape()[i]; m == h5core.Unlimited {
			max = append(max, "H5S_UNLIMITED")
		} else {
			max = append(max, fmt.Sprint(m))
		}
	}
	fmt.Fprintf(w, "   DATASPACE  SIMPLE { ( %s ) / ( %s ) }\n", strings.Join(cur, ", "), strings.Join(max, ", "))
}
