package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// exportPartBytes is the size a Parquet file of h5fs export aims at
// (uncompressed, by the view's estimate) unless --part-rows says otherwise.
const exportPartBytes = 256 << 20

// runExport writes every table of a file (or the one --table names) as a
// directory of Parquet files: h5fs export [--table PATH] [--part-rows N]
// FILE DEST. Each file is written under a temporary name and renamed once
// complete, and parts already present are kept, so an interrupted export
// resumes where it stopped.
func runExport(args []string, w io.Writer) error {
	fs := flags("export")
	only := fs.String("table", "", "export only the table at this HDF5 path")
	partRows := fs.Int64("part-rows", 0, "rows per Parquet file, rounded up to whole HDF5 chunk groups (default: about 256 MiB per file)")
	pos, err := parseArgs(fs, args, 2, 2)
	if err != nil {
		return err
	}
	f, err := h5core.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	tables, findings, err := table.Discover(f, table.Lenient)
	if err != nil {
		return err
	}
	for _, x := range findings {
		if x.Severity == table.SevError {
			fmt.Fprintf(os.Stderr, "h5fs: %s: not exported: %v\n", f.Name(), x)
		}
	}
	if *only != "" {
		tables = selectTable(tables, *only)
		if tables == nil {
			return fmt.Errorf("%s: no table at %q", f.Name(), *only)
		}
	}
	var rows int64
	for _, t := range tables {
		rows += t.NRows
	}
	bar := newProgress(rows, "rows")
	defer bar.finish()
	for _, t := range tables {
		dir := filepath.Join(pos[1], exportDirName(t.Path))
		bar.step("exporting " + t.Path)
		written, kept, err := exportTable(t, dir, *partRows, bar)
		bar.clear()
		if err != nil {
			return fmt.Errorf("%s: table %s: %w", f.Name(), t.Path, err)
		}
		fmt.Fprintf(w, "%s: %d rows in %d files (%d written, %d already there)\n", dir, t.NRows, written+kept, written, kept)
	}
	return nil
}

// selectTable returns the table at HDF5 path p, alone, or nil.
func selectTable(tables []*table.Table, p string) []*table.Table {
	p = "/" + strings.Trim(p, "/")
	for _, t := range tables {
		if t.Path == p {
			return []*table.Table{t}
		}
	}
	return nil
}

// exportDirName is the directory, relative to the export's destination,
// of the table at HDF5 path p: its path with each name escaped as the
// mount shows it, and the root table as the mount names its files.
func exportDirName(p string) string {
	if p == "/" {
		return fsnode.RootTableStem
	}
	var names []string
	for _, n := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		names = append(names, fsnode.EscapeName(n))
	}
	return filepath.Join(names...)
}

// exportTable writes table t as Parquet files into dir: part i holding
// rows [a, b) is part-A-B.parquet (zero-padded, so names sort in row
// order). A part already there is kept; files of other parts (of an
// earlier state of the table) and temporary files of an interrupted run
// are removed once every part is in place.
func exportTable(t *table.Table, dir string, partRows int64, bar *progress) (written, kept int, err error) {
	parts, err := arrowexport.NewParquetParts(arrowexport.FromTable(t), partRows, exportPartBytes)
	if err != nil {
		return 0, 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, err
	}
	want := map[string]bool{}
	for i := range parts.Len() {
		start, n := parts.Rows(i)
		name := fmt.Sprintf("part-%012d-%012d.parquet", start, start+n)
		want[name] = true
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err == nil {
			kept++
		} else if err := writeAtomic(path, func(w io.Writer) error { return parts.WriteTo(i, w) }); err != nil {
			return written, kept, err
		} else {
			written++
		}
		bar.add(n)
	}
	return written, kept, removeStale(dir, want)
}

// writeAtomic writes the file path through write: into a temporary file
// beside it (.NAME.*.tmp, which dataset readers skip), synced, then
// renamed, so path is either absent or complete.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails once renamed
	bw := bufio.NewWriterSize(tmp, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}

// removeStale removes the Parquet parts of dir not in want and the
// temporary files of interrupted exports, then syncs dir so the renames
// are durable.
func removeStale(dir string, want map[string]bool) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		stalePart := strings.HasPrefix(n, "part-") && strings.HasSuffix(n, ".parquet") && !want[n]
		tmp := strings.HasPrefix(n, ".part-") && strings.HasSuffix(n, ".tmp")
		if stalePart || tmp {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return err
			}
		}
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
