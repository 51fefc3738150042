package fusetest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// SoakSecondsEnv sets how long the soak tests read, in seconds (default
// 60); each reader finishes its first pass over the files in any case.
const SoakSecondsEnv = "H5FS_SOAK_SECONDS"

// SoakMount copies the HDF5 files srcs into a new directory, mounts it
// with the h5fs binary in the foreground (a process of its own, whose
// memory the soak samples) and returns the mount point, the mount's
// process id and the mount's regular files. It needs root.
func SoakMount(t *testing.T, srcs []string) (mp string, pid int, files []string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("kernel mount tests need root")
	}
	bin := Binary(t)
	dir := t.TempDir()
	for _, src := range srcs {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mp, pid = StartMount(t, bin, dir)
	err := filepath.WalkDir(mp, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return mp, pid, files
}

// SoakReader reads one file and returns what it found, keyed by the way
// it read it: a value that starts with "error" is a failure, any other
// must be what the first read of that file that way found.
type SoakReader func(file string) map[string]string

// Soak has readers readers, each made by newReader (with a function that
// ends it), go over files again and again, each starting at another
// file, for SoakSecondsEnv seconds, while the resident memory of process
// pid (the mount) is sampled. Every read must succeed and find what the
// first found, and the memory must not grow past its peak during the
// first pass (with slack for the Go collector's timing).
func Soak(t *testing.T, pid int, files []string, readers int, newReader func() (SoakReader, func())) {
	t.Helper()
	secs := 60
	if s := os.Getenv(SoakSecondsEnv); s != "" {
		var err error
		if secs, err = strconv.Atoi(s); err != nil || secs <= 0 {
			t.Fatalf("%s=%q: want a number of seconds", SoakSecondsEnv, s)
		}
	}
	if len(files) == 0 {
		t.Fatal("soak: no files")
	}
	var (
		mu       sync.Mutex
		first    = map[string]string{}
		failures []string
	)
	check := func(file string, found map[string]string) {
		mu.Lock()
		defer mu.Unlock()
		for how, got := range found {
			key := how + " " + file
			if strings.HasPrefix(got, "error") {
				failures = append(failures, key+": "+got)
			} else if want, ok := first[key]; !ok {
				first[key] = got
			} else if got != want {
				failures = append(failures, fmt.Sprintf("%s: read %q, first read %q", key, got, want))
			}
		}
	}
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	var passes, running sync.WaitGroup // first passes; readers
	passes.Add(readers)
	counts := make([]int, readers)
	for r := range readers {
		running.Add(1)
		go func() {
			defer running.Done()
			read, end := newReader()
			defer end()
			for n := 0; ; n++ {
				if n == len(files) {
					passes.Done()
				}
				if n >= len(files) && time.Now().After(deadline) {
					break
				}
				f := files[(r*len(files)/readers+n)%len(files)]
				check(f, read(f))
				counts[r]++
			}
		}()
	}
	firstDone, allDone := make(chan struct{}), make(chan struct{})
	go func() { passes.Wait(); close(firstDone) }()
	go func() { running.Wait(); close(allDone) }()
	var base, peak int64
	inFirst := true
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-firstDone:
			inFirst, firstDone = false, nil
		case <-allDone:
			done = true
		case <-tick.C:
		}
		rss := vmRSS(t, pid)
		if inFirst {
			base = max(base, rss)
		} else {
			peak = max(peak, rss)
		}
	}
	t.Logf("%d files, reads per reader %v; mount RSS: first pass up to %d MiB, afterwards up to %d MiB", len(files), counts, base>>20, peak>>20)
	for _, f := range failures[:min(len(failures), 20)] {
		t.Error(f)
	}
	if len(failures) > 20 {
		t.Errorf("... %d failures in all", len(failures))
	}
	if limit := base + base/4 + 32<<20; peak > limit {
		t.Errorf("mount RSS grew after the first pass: %d MiB, first pass %d MiB (limit %d MiB)", peak>>20, base>>20, limit>>20)
	}
}

// vmRSS is the resident memory of process pid in bytes.
func vmRSS(t *testing.T, pid int) int64 {
	n, err := VmRSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// VmRSS returns the resident memory of process pid in bytes.
func VmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
}
