package fuse_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestDatasetCSVPandas mounts the dataset CSV test file of arrowexport and
// has its checker read every name.csv on the mount with pandas and compare
// it with h5py's values.
func TestDatasetCSVPandas(t *testing.T) {
	if err := exec.Command(python, "-c", "import h5py, pandas").Run(); err != nil {
		t.Skipf("%s has no h5py/pandas: %v", python, err)
	}
	const h5 = "../../arrowexport/testdata/dscsv.h5"
	mp := fusetest.Mount(t, h5, nil)
	csvs, _ := filepath.Glob(filepath.Join(mp, "*.csv"))
	if len(csvs) < 20 {
		t.Fatalf("%d CSV files on the mount of %s", len(csvs), h5)
	}
	for _, none := range []string{"nocols.csv", "vlen_seq.csv"} {
		if _, err := os.Stat(filepath.Join(mp, none)); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want no such file", none, err)
		}
	}
	out, err := exec.Command(python, "../../arrowexport/testdata/check_dscsv.py", h5, mp).CombinedOutput()
	if err != nil {
		t.Fatalf("check_dscsv.py: %v\n%s", err, out)
	}
	if got := strings.Count(string(out), "ok "); got != len(csvs) {
		t.Fatalf("check_dscsv.py checked %d of %d files:\n%s", got, len(csvs), out)
	}
}
