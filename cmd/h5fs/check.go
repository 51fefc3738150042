package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// errViolation makes check exit with status 1 after printing its report.
var errViolation = errors.New("tables violate HEP001")

// runCheck validates every table of a file and prints its findings:
// h5fs check [--strict] [--verify-indexes] FILE. It fails on any error
// finding; with --strict, tables with errors are refused and warnings
// count as violations too.
func runCheck(args []string, w io.Writer) error {
	fs := flags("check")
	strict := fs.Bool("strict", false, "refuse tables with errors; warnings are violations")
	verify := fs.Bool("verify-indexes", false, "recompute every search index from its column")
	pos, err := parseArgs(fs, args, 1, 1)
	if err != nil {
		return err
	}
	f, err := h5core.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	mode := table.Lenient
	if *strict {
		mode = table.Strict
	}
	tables, fileFindings, err := table.Discover(f, mode)
	if err != nil {
		return err
	}
	var errs, warns int
	var rows int64
	for _, t := range tables {
		rows += t.NRows
	}
	bar := newProgress(rows, "rows")
	defer bar.finish()
	count := func(fs []table.Finding) {
		for _, x := range fs {
			if x.Severity == table.SevError {
				errs++
			} else {
				warns++
			}
		}
	}
	for _, t := range tables {
		bar.step("checking " + t.Path)
		found := t.Check(*verify)
		bar.clear()
		count(found)
		status := "ok"
		if len(found) > 0 {
			status = fmt.Sprintf("%d findings", len(found))
		}
		fmt.Fprintf(w, "%s (%s, %d rows, %d columns): %s\n", t.Path, t.Kind, t.NRows, len(t.Columns), status)
		printFindings(w, found)
		bar.add(t.NRows)
	}
	if len(fileFindings) > 0 {
		fmt.Fprintln(w, "not shown:")
		printFindings(w, fileFindings)
		count(fileFindings)
	}
	fmt.Fprintf(w, "%d tables, %d errors, %d warnings\n", len(tables), errs, warns)
	if errs > 0 || (*strict && warns > 0) {
		return errViolation
	}
	return nil
}

func printFindings(w io.Writer, fs []table.Finding) {
	for _, x := range fs {
		fmt.Fprintf(w, "  %s %s %s: %s\n", x.Severity, x.Rule, x.Path, x.Msg)
	}
}
