package fuse_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// randhepMutateSeeds is how many of the random files (seeds 1..N)
// TestRandomHEP001Mutate changes by default; H5FS_RANDHEP_SEEDS chooses
// them as for TestRandomHEP001.
const randhepMutateSeeds = 16

// TestRandomHEP001Mutate mounts random HEP001 files read-write and, for
// every table with rows, appends its first rows back through its CSV view
// (the lines exactly as the view served them) and truncates it by
// truncate(2) of a column's .raw file. After unmounting, libhdf5 (h5py,
// check_mutated.py) sees NROWS grown by the rows appended less those
// truncated, the old rows unchanged and the new ones equal to the rows
// they copy, and check_write.py finds every search index equal to one
// recomputed from scratch. Tables h5fs refuses to change (with errors, no
// room to grow, columns it cannot write; files it cannot open for
// writing) must be left as they were.
func TestRandomHEP001Mutate(t *testing.T) {
	seeds, err := randhepSeedList(os.Getenv("H5FS_RANDHEP_SEEDS"))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("H5FS_RANDHEP_SEEDS") == "" {
		seeds = seeds[:randhepMutateSeeds]
	}
	dir := generateRandhep(t, seeds)
	var changed, refused int
	for _, s := range seeds {
		name := filepath.Join(dir, fmt.Sprintf("randhep_%d.h5", s))
		exp := loadRandExpected(t, name)
		t.Run(fmt.Sprintf("seed%d", s), func(t *testing.T) {
			c, r := mutateRandomFile(t, name, exp, s)
			changed, refused = changed+c, refused+r
			if t.Failed() {
				t.Logf("reproduce with H5FS_RANDHEP_SEEDS=%d go test -run TestRandomHEP001Mutate ./test/fuse/", s)
			}
		})
	}
	t.Logf("%d seeds: %d tables appended to and truncated, %d refused", len(seeds), changed, refused)
	if changed == 0 {
		t.Error("no random table took an append")
	}
}

// headLines returns the first n records of CSV text b, bytes as they are.
func headLines(b []byte, n int) ([]byte, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	for range n {
		if _, err := r.Read(); err != nil {
			return nil, err
		}
	}
	return b[:r.InputOffset()], nil
}

// mutateRandomFile appends to and truncates every table of one random
// file through a read-write mount, then checks the file with h5py. It
// returns how many tables were changed and how many refused.
func mutateRandomFile(t *testing.T, name string, exp *randExpected, seed int) (changed, refused int) {
	orig := name + ".orig.h5"
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(orig, b, 0o644); err != nil {
		t.Fatal(err)
	}
	type change struct {
		path string
		k, j int64
	}
	var changes []change
	rw, err := h5core.OpenRW(name)
	if err != nil {
		t.Logf("not writable: %v", err)
		return 0, len(exp.Tables)
	}
	rw.Close()
	mp, unmount := fusetest.MountRW(t, name, nil)
	for _, tb := range exp.Tables {
		if tb.NRows == 0 {
			continue
		}
		view := fusetest.WholeTable(mp, tb.Path, "csv")
		text, err := os.ReadFile(view)
		if err != nil {
			t.Errorf("%s: %v", view, err)
			continue
		}
		k := min(tb.NRows, 1+int64(seed)%5)
		lines, err := headLines(text, int(k)+1) // the header, then k rows
		if err != nil {
			t.Errorf("%s: %v", view, err)
			continue
		}
		if err := fusetest.Append(view, lines); err != nil {
			t.Logf("%s: append refused: %v", tb.Path, err)
			refused++
			changes = append(changes, change{tb.Path, 0, 0})
			continue
		}
		j := int64(0)
		for _, c := range tb.Columns {
			if c.RawSHA256 == "" || c.ElemSize <= 0 {
				continue
			}
			j = 1 + int64(seed)%k
			raw := filepath.Join(fusetest.MountPath(mp, tb.Path), fsnodeName(c.Name)) + ".raw"
			if err := os.Truncate(raw, (tb.NRows+k-j)*c.ElemSize); err != nil {
				t.Errorf("%s: truncate to %d rows: %v", raw, tb.NRows+k-j, err)
				j = 0
			}
			break
		}
		changed++
		changes = append(changes, change{tb.Path, k, j})
	}
	unmount()
	for _, c := range changes {
		out, err := exec.Command(python, "testdata/check_mutated.py", orig, name, c.path, fmt.Sprint(c.k), fmt.Sprint(c.j)).CombinedOutput()
		if err != nil {
			t.Errorf("%s: appended %d rows, truncated %d: check_mutated.py: %v\n%s", c.path, c.k, c.j, err, out)
		}
		if c.k == 0 {
			continue
		}
		cmd := exec.Command(python, "check_write.py", name, c.path)
		cmd.Dir = fusetest.OwnCorpus
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: check_write.py (indexes recomputed from scratch): %v\n%s", c.path, err, out)
		}
	}
	return changed, refused
}
