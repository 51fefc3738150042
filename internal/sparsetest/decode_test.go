package sparsetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeFixtures checks the independent decoder against every sparse
// dataset of the committed fixtures (written by another independent
// writer, with the expected elements in .expected.json).
func TestDecodeFixtures(t *testing.T) {
	files, _ := filepath.Glob("../../sparsecoo/testdata/*.h5")
	if len(files) == 0 {
		t.Fatal("no fixtures in sparsecoo/testdata")
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(strings.TrimSuffix(f, ".h5") + ".expected.json")
		if err != nil {
			t.Fatal(err)
		}
		var exp struct {
			Datasets []struct {
				Name, Kind, Dtype string
				COO               [][]float64
			}
		}
		if err := json.Unmarshal(b, &exp); err != nil {
			t.Fatal(err)
		}
		for _, ds := range exp.Datasets {
			if ds.Kind != "sparse" {
				continue
			}
			got, err := Decode(f, "/"+ds.Name, ds.Dtype)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.COO) != len(ds.COO) || (len(got.COO) > 0 && !reflect.DeepEqual(got.COO, ds.COO)) {
				t.Errorf("%s %s: decoded %d elements, expected %d (%v)", f, ds.Name, len(got.COO), len(ds.COO), got.COO)
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d sparse datasets decoded", n)
	}
}
