package fuse_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// bigGroupMembers is the size of the big group: 300,000 members, which
// once took `ls -l` 1 min 44 s and the mount 1.7 GB.
const bigGroupMembers = 300_000

// bigGroupBudget is the most memory (resident set) the mount may take
// while `ls -l` lists the big group.
const bigGroupBudget = 512 << 20

// TestBigGroup mounts a file whose group /g has 300,000 members (made at
// test time by testdata/biggroup.py) with the h5fs binary, a process of
// its own as a user's mount is, and lists the group with `ls -l` while
// the mount's resident memory is sampled: every member is listed, with a
// directory's attributes, and the mount stays within bigGroupBudget.
// Members are then looked at one by one (a directory listed, attributes
// read) to see that what the listing keeps of each leads back to it.
func TestBigGroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kernel mount tests need root")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "big.h5")
	start := time.Now()
	if out, err := exec.Command("/usr/bin/python3", "testdata/biggroup.py", name, fmt.Sprint(bigGroupMembers)).CombinedOutput(); err != nil {
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
	n, dirs := 0, 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 9 && strings.HasPrefix(f[8], "e") {
			n++
			if f[0][0] == 'd' {
				dirs++
			}
		}
	}
	if err := ls.Wait(); err != nil {
		t.Fatalf("ls -l: %v", err)
	}
	took := time.Since(start)
	close(done)
	most := <-peak
	t.Logf("ls -l of %d members: %v, mount's peak RSS %d MiB (budget %d MiB)", n, took.Round(time.Millisecond), most>>20, bigGroupBudget>>20)
	if n != bigGroupMembers || dirs != n {
		t.Errorf("ls -l listed %d members, %d of them directories; want %d directories", n, dirs, bigGroupMembers)
	}
	if most == 0 || most > bigGroupBudget {
		t.Errorf("mount's peak RSS %d MiB, budget %d MiB", most>>20, bigGroupBudget>>20)
	}

	for _, i := range []int{0, 1, bigGroupMembers / 2, bigGroupMembers - 1} {
		m := filepath.Join(mp, "g", fmt.Sprintf("e%06d", i))
		es, err := os.ReadDir(m)
		if err != nil || len(es) != 1 || es[0].Name() != ".meta.json" {
			t.Errorf("%s: %v, %v; want only .meta.json", m, es, err)
			continue
		}
		b, err := os.ReadFile(filepath.Join(m, ".meta.json"))
		if want := fmt.Sprintf(`"/g/e%06d"`, i); err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s/.meta.json: %v; does not name %s:\n%s", m, err, want, b)
		}
		if _, err := syscall.Listxattr(m, make([]byte, 64)); err != nil {
			t.Errorf("listxattr %s: %v", m, err)
		}
	}
}
