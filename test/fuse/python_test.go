package fuse_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// python is Debian's interpreter, the one with numpy and pandas.
const python = "/usr/bin/python3"

// pyReport is what a checking script prints: how many comparisons it
// made, the kinds of values it met, and the mismatches it found.
type pyReport struct {
	Checked int
	Kinds   []string
	Errors  []string
}

// runPyCheck runs python with args, the checking script what and its
// arguments, fails the test for each mismatch it reports, and returns
// the report.
func runPyCheck(t *testing.T, what string, args ...string) pyReport {
	t.Helper()
	out, err := exec.Command(python, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, out)
	}
	var r pyReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, out)
	}
	for _, e := range r.Errors {
		t.Error(e)
	}
	return r
}

// pyChecks reads the files named on stdin with pandas and numpy and
// prints what it found.
const pyChecks = `
import hashlib, json, sys
import numpy as np, pandas as pd
out = []
for c in json.load(sys.stdin):
    r = {}
    try:
        if c["op"] == "read_csv":
            df = pd.read_csv(c["path"])
            s = df[c["column"]]
            r = {"rows": len(df), "count": int(s.count()), "sum": float(s.sum())}
            if r["sum"] != r["sum"] or abs(r["sum"]) == float("inf"):
                r["sum"] = repr(r["sum"])
        elif c["op"] == "fromfile":
            a = np.fromfile(c["path"], dtype=c["dtype"])
            r = {"n": len(a), "sha256": hashlib.sha256(a.tobytes()).hexdigest()}
        elif c["op"] == "read_csv_array":
            df = pd.read_csv(c["path"], float_precision="round_trip")
            want = np.array(c["values"], dtype=c["dtype"])
            want = want.reshape(-1, want.shape[-1]) if want.ndim >= 2 else want.reshape(-1, 1)
            got = df.to_numpy()
            r = {"columns": list(df.columns), "shape": list(got.shape),
                 "equal": got.shape == want.shape and bool(np.array_equal(got.astype(want.dtype), want))}
        elif c["op"] == "load_mmap":
            a = np.load(c["path"], mmap_mode="r")
            want = np.array(c["values"], dtype=a.dtype)
            r = {"shape": list(a.shape), "equal": bool(np.array_equal(a, want))}
    except Exception as e:
        r = {"error": repr(e)}
    out.append(r)
print(json.dumps(out))
`

type pyCheck struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	Column string `json:"column,omitempty"`
	DType  string `json:"dtype,omitempty"`
	Values any    `json:"values,omitempty"`

	want func(map[string]any) error
}

// TestPython reads tables with pandas.read_csv, columns with
// numpy.fromfile, and datasets with numpy.load(mmap_mode='r') and
// pandas.read_csv.
func TestPython(t *testing.T) {
	if err := exec.Command(python, "-c", "import numpy, pandas").Run(); err != nil {
		t.Skipf("%s has no numpy/pandas: %v", python, err)
	}
	for _, name := range fusetest.FixtureFiles(t) {
		exp, ok := fusetest.LoadExpected(t, name)
		if !ok || (len(exp.Tables) == 0 && len(exp.Others) == 0) {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			mp := fusetest.Mount(t, name, nil)
			checks := pythonChecks(mp, exp)
			if len(checks) == 0 {
				t.Skip("nothing numeric to check")
			}
			in, _ := json.Marshal(checks)
			cmd := exec.Command(python, "-c", pyChecks)
			cmd.Stdin = bytes.NewReader(in)
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("python: %v", err)
			}
			var res []map[string]any
			if err := json.Unmarshal(out, &res); err != nil || len(res) != len(checks) {
				t.Fatalf("python output %q: %v", out, err)
			}
			for i, c := range checks {
				if e, ok := res[i]["error"]; ok {
					t.Errorf("%s %s: %v", c.Op, c.Path, e)
				} else if err := c.want(res[i]); err != nil {
					t.Errorf("%s %s: %v", c.Op, c.Path, err)
				}
			}
		})
	}
}

// pythonChecks lists what to read with pandas and numpy on the mount mp.
func pythonChecks(mp string, exp *fusetest.Expected) []pyCheck {
	var checks []pyCheck
	for _, tb := range exp.Tables {
		for _, c := range tb.Columns {
			col := filepath.Join(fusetest.MountPath(mp, tb.Path), fsnodeName(c.Name))
			if n, sum, ok := c.Numeric(); ok {
				nrows, c := tb.NRows, c
				checks = append(checks, pyCheck{Op: "read_csv", Path: fusetest.WholeTable(mp, tb.Path, "csv"), Column: c.Name,
					want: func(r map[string]any) error {
						if r["rows"] != float64(nrows) || r["count"] != float64(n) || !c.SumNear(r["sum"].(float64)) {
							return fmt.Errorf("got %v, want rows %d count %d sum %g", r, nrows, n, sum)
						}
						return nil
					}})
			}
			if dt := numpyType(c.DType); dt != "" && c.RawSHA256 != "" {
				sha := c.RawSHA256
				checks = append(checks, pyCheck{Op: "fromfile", Path: col + ".raw", DType: dt,
					want: func(r map[string]any) error {
						if r["sha256"] != sha {
							return fmt.Errorf("got %v, want sha256 %s", r, sha)
						}
						return nil
					}})
			}
		}
	}
	for _, o := range exp.Others {
		if o.Type == "dataset" && o.Values != nil {
			checks = append(checks, pyCheck{Op: "load_mmap", Path: fusetest.MountPath(mp, o.Path) + ".npy", Values: o.Values,
				want: func(r map[string]any) error {
					if r["equal"] != true {
						return fmt.Errorf("values differ: %v", r)
					}
					return nil
				}})
			header := datasetCSVHeader(o)
			checks = append(checks, pyCheck{Op: "read_csv_array", Path: fusetest.MountPath(mp, o.Path) + ".csv", Values: o.Values, DType: o.DType,
				want: func(r map[string]any) error {
					if r["equal"] != true || fmt.Sprint(r["columns"]) != fmt.Sprint(header) {
						return fmt.Errorf("got %v, want columns %v and equal values", r, header)
					}
					return nil
				}})
		}
	}
	return checks
}

// datasetCSVHeader is the header of dataset o's CSV file: c and the indices of
// its last axis, or its name when it has one axis.
func datasetCSVHeader(o fusetest.ExpectedObj) []any {
	if len(o.Shape) < 2 {
		return []any{path.Base(o.Path)}
	}
	var h []any
	for j := range o.Shape[len(o.Shape)-1] {
		h = append(h, "c"+strconv.FormatInt(j, 10))
	}
	return h
}

// numpyType returns the little-endian NumPy type of a plain integer or
// float column, or "".
func numpyType(dt map[string]any) string {
	size := fusetest.Int(dt["size"])
	switch dt["class"] {
	case "integer":
		if dt["signed"] == true {
			return fmt.Sprintf("<i%d", size)
		}
		return fmt.Sprintf("<u%d", size)
	case "float":
		return fmt.Sprintf("<f%d", size)
	}
	return ""
}
