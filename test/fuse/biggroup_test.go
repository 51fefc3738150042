package fuse_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// bigGroupMembers is the size of the big group: 300,000 members, which
// once took `ls -l` 1 min 44 s and the mount 1.7 GB (groups), or 1.4 GB
// (datasets).
const bigGroupMembers = 300_000

// bigGroupBudget is the most memory (resident set) the mount may take
// while `ls -l` lists the big group.
const bigGroupBudget = 512 << 20

// TestBigGroup mounts a file whose group /g has 300,000 members (made at
// test time by testdata/biggroup.py): empty groups, or small int32
// datasets of three files each (900,000 files). The h5fs binary runs as a
// process of its own, as a user's mount does, and `ls -l` lists the group
// while the mount's resident memory is sampled: every member is listed,
// as a directory or as its three files with their exact sizes, and the
// mount stays within bigGroupBudget. Members are then looked at one by
// one (a directory listed or a file read, attributes listed) to see that
// what the listing keeps of each leads back to it.
func TestBigGroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kernel mount tests need root")
	}
	for _, kind := range []string{"groups", "datasets"} {
		t.Run(kind, func(t *testing.T) { testBigGroup(t, kind == "datasets") })
	}
}

// testBigGroup is TestBigGroup of a group of datasets, or of groups.
func testBigGroup(t *testing.T, datasets bool) {
	name := filepath.Join(t.TempDir(), "big.h5")
	args := []string{"testdata/biggroup.py", name, fmt.Sprint(bigGroupMembers)}
	if datasets {
		args = append(args, "datasets")
	}
	start := time.Now()
	if out, err := exec.Command("/usr/bin/python3", args...).CombinedOutput(); err != nil {
		t.Fatalf("biggroup.py: %v\n%s", err, out)
	}
	t.Logf("made %d members in %v", bigGroupMembers, time.Since(start).Round(time.Millisecond))

	mp, pid := fusetest.StartMount(t, fusetest.Binary(t), name)
	done := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var most int64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if n, err := fusetest.VmRSS(pid); err == nil {
				most = max(most, n)
			}
			select {
			case <-done:
				peak <- most
				return
			case <-tick.C:
			}
		}
	}()
	start = time.Now()
	ls := exec.Command("ls", "-l", filepath.Join(mp, "g"))
	out, err := ls.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ls.Start(); err != nil {
		t.Fatal(err)
	}
	n, bad := 0, 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 9 {
			continue
		}
		n++
		if want := bigGroupEntry(f[8], datasets); want == "" || f[0][0] != want[0] || (datasets && f[4] != want[1:]) {
			if bad++; bad <= 5 {
				t.Errorf("ls -l: %q; want %q (type, size)", sc.Text(), want)
			}
		}
	}
	if err := ls.Wait(); err != nil {
		t.Fatalf("ls -l: %v", err)
	}
	took := time.Since(start)
	close(done)
	most := <-peak
	t.Logf("ls -l of %d entries: %v, mount's peak RSS %d MiB (budget %d MiB)", n, took.Round(time.Millisecond), most>>20, bigGroupBudget>>20)
	if want := bigGroupMembers * bigGroupFiles(datasets); n != want || bad > 0 {
		t.Errorf("ls -l listed %d entries, %d of them wrong; want %d", n, bad, want)
	}
	if most == 0 || most > bigGroupBudget {
		t.Errorf("mount's peak RSS %d MiB, budget %d MiB", most>>20, bigGroupBudget>>20)
	}

	for _, i := range []int{0, 1, bigGroupMembers / 2, bigGroupMembers - 1} {
		if datasets {
			checkBigDataset(t, mp, i)
		} else {
			checkBigMemberGroup(t, mp, i)
		}
	}
}

// bigGroupFiles is the number of entries each member of the big group
// shows.
func bigGroupFiles(datasets bool) int {
	if datasets {
		return 3
	}
	return 1
}

// bigGroupEntry returns what ls -l should show of the big group's entry
// name: its type letter and, for a dataset's file, its size; "" for a
// name the group does not have.
func bigGroupEntry(name string, datasets bool) string {
	if !datasets {
		if _, err := strconv.Atoi(strings.TrimPrefix(name, "e")); err != nil || len(name) != 7 || name[0] != 'e' {
			return ""
		}
		return "d"
	}
	stem, ext, _ := strings.Cut(name, ".")
	i, err := strconv.Atoi(strings.TrimPrefix(stem, "d"))
	if err != nil || len(stem) != 7 || stem[0] != 'd' {
		return ""
	}
	switch ext {
	case "raw":
		return "-16" // 4 int32
	case "npy":
		return "-144" // the 128-byte header and 4 int32
	case "csv":
		return "-" + fmt.Sprint(len(bigDatasetCSV(stem, i)))
	}
	return ""
}

// bigDatasetCSV is the content of member i's .csv (biggroup.py writes
// i, i+1, i+2, i+3 in dataset stem).
func bigDatasetCSV(stem string, i int) string {
	return fmt.Sprintf("%s\n%d\n%d\n%d\n%d\n", stem, i, i+1, i+2, i+3)
}

// checkBigMemberGroup looks at member group i: its listing, its
// .meta.json, its attributes.
func checkBigMemberGroup(t *testing.T, mp string, i int) {
	m := filepath.Join(mp, "g", fmt.Sprintf("e%06d", i))
	es, err := os.ReadDir(m)
	if err != nil || len(es) != 1 || es[0].Name() != ".meta.json" {
		t.Errorf("%s: %v, %v; want only .meta.json", m, es, err)
		return
	}
	b, err := os.ReadFile(filepath.Join(m, ".meta.json"))
	if want := fmt.Sprintf(`"/g/e%06d"`, i); err != nil || !strings.Contains(string(b), want) {
		t.Errorf("%s/.meta.json: %v; does not name %s:\n%s", m, err, want, b)
	}
	if _, err := syscall.Listxattr(m, make([]byte, 64)); err != nil {
		t.Errorf("listxattr %s: %v", m, err)
	}
}

// checkBigDataset reads member dataset i's files and lists its
// attributes.
func checkBigDataset(t *testing.T, mp string, i int) {
	stem := fmt.Sprintf("d%06d", i)
	m := filepath.Join(mp, "g", stem)
	b, err := os.ReadFile(m + ".csv")
	if want := bigDatasetCSV(stem, i); err != nil || string(b) != want {
		t.Errorf("%s.csv: %q, %v; want %q", m, b, err, want)
	}
	b, err = os.ReadFile(m + ".raw")
	want := make([]byte, 0, 16)
	for k := range 4 {
		want = binary.LittleEndian.AppendUint32(want, uint32(i+k))
	}
	if err != nil || string(b) != string(want) {
		t.Errorf("%s.raw: % x, %v; want % x", m, b, err, want)
	}
	if _, err := syscall.Listxattr(m+".npy", make([]byte, 64)); err != nil {
		t.Errorf("listxattr %s.npy: %v", m, err)
	}
}
