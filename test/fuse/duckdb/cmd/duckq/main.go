// Command duckq runs SQL statements in one in-memory DuckDB database and
// prints the rows of each, tab-separated, one line a row. It is the
// DuckDB driver of bench/fuse_bench.sh, kept in this test-only module so
// that the DuckDB library stays out of the h5fs binary.
//
//	duckq [-time] [-threads N] SQL...
//
// With -time, the last line is "elapsed SECONDS": the wall time of the
// last statement, from sending it to reading its last row (opening the
// database and the earlier statements are not counted).
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

func main() {
	timed := flag.Bool("time", false, "print the elapsed time of the last statement")
	threads := flag.Int("threads", 0, "DuckDB worker threads (0: DuckDB's default)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: duckq [-time] [-threads N] SQL...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Args(), *threads, *timed); err != nil {
		fmt.Fprintln(os.Stderr, "duckq:", err)
		os.Exit(1)
	}
}

// run runs each statement in turn and prints its rows.
func run(stmts []string, threads int, timed bool) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: settings apply to every statement
	if threads > 0 {
		if _, err := db.Exec(fmt.Sprintf("SET threads = %d", threads)); err != nil {
			return err
		}
	}
	var elapsed time.Duration
	for _, q := range stmts {
		s := time.Now()
		lines, err := query(db, q)
		elapsed = time.Since(s)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		for _, l := range lines {
			fmt.Println(l)
		}
	}
	if timed {
		fmt.Printf("elapsed %.6f\n", elapsed.Seconds())
	}
	return nil
}

// query runs q and returns its rows as tab-separated lines.
func query(db *sql.DB, q string) ([]string, error) {
	rows, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		f := make([]string, len(vals))
		for i, v := range vals {
			f[i] = fmt.Sprint(v)
			if v == nil {
				f[i] = "NULL"
			}
		}
		out = append(out, strings.Join(f, "\t"))
	}
	return out, rows.Err()
}
