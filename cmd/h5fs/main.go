// Command h5fs shows HDF5 files as ordinary files: it lists and dumps
// their objects and mounts them as a FUSE filesystem.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// command is one subcommand of h5fs.
type command struct {
	name  string
	usage string
	run   func(args []string, stdout io.Writer) error
}

var commands []command

func init() {
	commands = []command{
		{"ls", "ls [-r] [-v] [--json] FILE [HDF5PATH]   list objects", runLs},
		{"dump", "dump [--raw] [--sparse [--locations-only]] FILE HDF5PATH  print a dataset (--raw: packed little-endian bytes; --sparse: defined elements as regions)", runDump},
		{"stat", "stat FILE                              count objects, dataset layouts and filters", runStat},
		{"cat", "cat FILE VIEWPATH                      print a file of the mount without mounting", runCat},
		{"mount", "mount [-f] [-o ro,allow_other,uid=N,gid=N] [--log-file F] FILE|DIR MOUNTPOINT  mount FILE (or every HDF5 file under DIR) in the background (-f: foreground)", runMount},
		{"check", "check [--strict] [--verify-indexes] FILE  validate every table (HEP001 §12); exit 1 on a violation", runCheck},
		{"import-mtx", "import-mtx [--chunk RxC] FILE DST MATRIX.mtx  define the elements of a Matrix Market file in sparse DST (created with --chunk [--filter-selection F] [--filter-data F])", runImportMTX},
		{"sparsify", "sparsify [--exclude V] [--chunk AxB] FILE SRC DST  copy dense SRC into sparse DST (created with --chunk [--filter-selection F] [--filter-data F]; elements equal to V, default the fill value, undefined)", runSparsify},
		{"densify", "densify [--filter F] FILE SRC DST        write sparse SRC into a new dense chunked DST (fill value where undefined)", runDensify},
		{"export", "export [--table PATH] [--part-rows N] FILE DEST  write each table as a directory DEST/TABLE of Parquet files (resumable)", runExport},
		{"demo", "demo [MOUNTPOINT]                      list and mount the built-in sample file", runDemo},
	}
}

// errUsage makes main print the usage and exit with status 2.
var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: h5fs COMMAND [ARGS]")
	for _, c := range commands {
		fmt.Fprintln(w, "  h5fs "+c.usage)
	}
}

func main() {
	if isMountHelper(os.Args) {
		if err := runMountHelper(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "h5fs:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(2)
	}
	for _, c := range commands {
		if c.name == os.Args[1] {
			err := c.run(os.Args[2:], os.Stdout)
			if errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) {
				fmt.Fprintln(os.Stderr, "usage: h5fs "+c.usage)
				os.Exit(2)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "h5fs:", err)
				os.Exit(1)
			}
			return
		}
	}
	usage(os.Stderr)
	os.Exit(2)
}

// flags returns a flag set that reports errors instead of exiting.
func flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseArgs parses flags that may appear between positional arguments and
// returns the positional ones, of which there must be from min to max
// (errUsage otherwise).
func parseArgs(fs *flag.FlagSet, args []string, min, max int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%v: %w", err, errUsage)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) < min || len(pos) > max {
		return nil, errUsage
	}
	return pos, nil
}
