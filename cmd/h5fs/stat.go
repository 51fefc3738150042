package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/h5fs/h5fs/h5core"
)

// runStat counts a file's objects, its datasets per storage layout
// (including structured-chunk sparse, programming model RFC §4.3) and
// per filter. A filter applied to several sections of a sparse dataset's
// chunks counts once for that dataset.
func runStat(args []string, w io.Writer) error {
	fs := flags("stat")
	pos, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	f, err := h5core.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	root, err := f.Root()
	if err != nil {
		return err
	}
	var st fileStats
	st.filters = map[uint16]int{}
	st.walk(root, map[uint64]bool{root.Addr: true})
	fmt.Fprintf(w, "File information\n")
	fmt.Fprintf(w, "  # of unique groups: %d\n", st.groups)
	fmt.Fprintf(w, "  # of unique datasets: %d\n", st.datasets)
	fmt.Fprintf(w, "  # of unique named datatypes: %d\n", st.types)
	fmt.Fprintf(w, "  # of objects that could not be read: %d\n", st.errors)
	fmt.Fprintf(w, "Dataset layout information:\n")
	for _, l := range []struct{ name, key string }{
		{"COMPACT", "compact"}, {"CONTIG", "contiguous"}, {"CHUNKED", "chunked"},
		{"STRUCTURED CHUNK SPARSE", "sparse"}, {"VIRTUAL", "virtual"},
	} {
		fmt.Fprintf(w, "  Dataset layout counts[%s]: %d\n", l.name, st.layouts[l.key])
	}
	fmt.Fprintf(w, "Dataset filters information:\n")
	fmt.Fprintf(w, "  Number of datasets with:\n")
	fmt.Fprintf(w, "    NO filter: %d\n", st.unfiltered)
	ids := make([]int, 0, len(st.filters))
	for id := range st.filters {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	for _, id := range ids {
		name := h5core.FilterName(uint16(id))
		if name == "" {
			name = fmt.Sprintf("filter %d", id)
		}
		fmt.Fprintf(w, "    %s filter: %d\n", name, st.filters[uint16(id)])
	}
	return nil
}

// fileStats accumulates what runStat reports.
type fileStats struct {
	groups, datasets, types, errors int
	layouts                         map[string]int
	unfiltered                      int
	filters                         map[uint16]int // datasets using each filter
}

// walk visits every object reachable by hard links once.
func (st *fileStats) walk(o *h5core.Object, seen map[uint64]bool) {
	switch o.Kind() {
	case h5core.KindGroup:
		st.groups++
		links, err := o.Links()
		if err != nil {
			st.errors++
			return
		}
		for _, l := range links {
			if l.Type != h5core.LinkHard || seen[l.Addr] {
				continue
			}
			seen[l.Addr] = true
			c, err := o.OpenLink(l)
			if err != nil {
				st.errors++
				continue
			}
			st.walk(c, seen)
		}
	case h5core.KindDataset:
		st.datasets++
		ds, err := o.Dataset()
		if err != nil {
			st.errors++
			return
		}
		if st.layouts == nil {
			st.layouts = map[string]int{}
		}
		layout := ds.Layout()
		if ds.IsSparse() {
			layout = "sparse"
		}
		st.layouts[layout]++
		used := map[uint16]bool{}
		for _, fl := range ds.Filters {
			used[fl.ID] = true
		}
		for _, p := range ds.SectionFilters {
			for _, fl := range p {
				used[fl.ID] = true
			}
		}
		if len(used) == 0 {
			st.unfiltered++
		}
		for id := range used {
			st.filters[id]++
		}
	case h5core.KindDatatype:
		st.types++
	}
}
