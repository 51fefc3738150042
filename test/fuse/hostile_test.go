package fuse_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// hostileScript writes the hostile corpus (testdata/hostile.py).
const hostileScript = "testdata/hostile.py"

// rssBudget is the most memory (resident set) the test process, which
// serves the mounts, may take while the hostile corpus is walked.
const rssBudget = 512 << 20

// hangLimit is how long one file's whole walk may take before the test
// calls it hung. Every case but chunks.h5 answers in well under a second
// and chunks.h5 in about 5 s (load 13 on 2 cores), but on a machine shared by
// many test runs (load 30 on 2 cores) reading chunks.h5's views took 70 s;
// the hangs this catches (a soft-link bomb: minutes; a hard-link diamond:
// never ends) take far longer.
const hangLimit = 3 * time.Minute

// hostileCorpus writes the hostile corpus into a temporary directory and
// returns it.
func hostileCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command(python, hostileScript, dir).CombinedOutput(); err != nil {
		t.Fatalf("%s (needs python3-h5py, which scripts/test.sh installs): %v\n%s", hostileScript, err, out)
	}
	return dir
}

// hostileCase is one file of the corpus: the symbolic links it must show
// (path below the mount -> where they resolve, "" for the mount itself),
// names it must show, the paths that must read as EIO or fail to open
// with EFBIG, extended
// attributes (path -> name -> value, "E2BIG" for a refusal), and what the
// log must then say.
type hostileCase struct {
	file   string
	links  map[string]string
	names  []string
	eio    []string
	efbig  []string
	xattrs map[string]map[string]string
	logs   []string
	// once are log lines that must appear exactly once, however often
	// the walk asks.
	once []string
	// sizes are files whose size, once opened, must be the one given;
	// zeros are files to read whole, all of whose bytes are 0; tails are
	// files to read whole, as long as their size says, ending with the
	// bytes given.
	sizes map[string]int64
	zeros []string
	tails map[string]string
	// check, if set, checks more of the mount.
	check func(t *testing.T, mp string)
}

var hostileCases = []hostileCase{
	// a million chunks, every view read whole: first, so that the peak
	// RSS logged for it is its own
	{file: "chunks.h5",
		tails: map[string]string{"many.csv": "\n999998\n999999\n", "many.raw": "\x3f\x42\x0f\x00",
			"many.npy": "\x3e\x42\x0f\x00\x3f\x42\x0f\x00", ".meta.json": "}\n"},
	},
	{file: "slashname.h5",
		links: map[string]string{
			"a%2Fb%2Fc%2Fd%2Fe%2Ff%2Fg%2Fh/r":  "",
			"a%2Fb%2Fc%2Fd%2Fe%2Ff%2Fg%2Fh/s":  "etc",
			"a%2Fb%2Fc%2Fd%2Fe%2Ff%2Fg%2Fh/up": "x:/%2E.",
			"t":                                "x:/%2E./%2E./etc",
		},
		// '' (a group and a dataset), '.' and an escape sequence:
		// visible, escaped names (no hidden .raw/.csv/.npy); the
		// group '.' and the group whose name holds '/' answer with their
		// own attributes, not the root's or a failed lookup by path
		names: []string{"%/w.csv", "%2E/v.csv", "%1B[31mred.raw", "%1B[31mred.csv", "%1B[31mred.npy",
			"nd/%.raw", "nd/%.csv", "nd/%.npy"},
		xattrs: map[string]map[string]string{"": {"user.rootattr": "2"}, "%2E": {"user.dotattr": "1"},
			"a%2Fb%2Fc%2Fd%2Fe%2Ff%2Fg%2Fh": {"user.deepattr": "3"}},
		eio:  []string{"abs", "a%2Fb%2Fc%2Fd%2Fe%2Ff%2Fg%2Fh/rel", "a%2Fb%2Fc%2Fd%2Fe%2Ff%2Fg%2Fh/x"},
		logs: []string{`soft link "abs" to "/etc/passwd:`, `soft link "rel" to "../../../../../../../../etc"`},
	},
	{file: "external.h5",
		eio:  []string{"passwd", "other", "xp"},
		logs: []string{`external link to "/" in "/etc/passwd"`, `external link to "/g" in "../../other.h5"`},
	},
	{file: "collide.h5",
		links: map[string]string{"sl": "%62.csv", "%62.csv/sx": "%62.csv/%78.csv", "%62.csv/sxa": "%62.csv/%78.csv"},
		names: []string{"_table.csv", "_table.arrow", "_table.parquet", "%5Ftable.csv", "%5Ftable.arrow", "%5Ftable.raw",
			"b.csv", "%62.csv/x.csv", "%62.csv/%78.csv"},
		xattrs: map[string]map[string]string{"%62.csv/%78.csv": {"user.mine": "7"}},
		logs:   []string{`"_table" is shown as "%5Ftable.`, `"b.csv" is shown as "%62.csv"`},
	},
	{file: "attrs.h5",
		xattrs: map[string]map[string]string{
			"odd": {"user.new%0Aline": "5", "user.%FF%FEbad": "5", "user.%2Edot": "5", "user.%1B[31mred": "5", "user.plain": "5",
				"user.big": "E2BIG"},
			"many":       {"user.a0000": "0", "user.a2999": "428.42857142857144"},
			"many/d.csv": {},
		},
		once: []string{`attribute "big": 688890 bytes as text`},
	},
	{file: "huge.h5",
		names: []string{"huge.raw", "huge.npy", "big/x.raw"},
		efbig: []string{"huge.csv", "big.csv", "big.arrow", "big.parquet", "big/x.csv", "big/x.arrow"},
		sizes: map[string]int64{"mid.csv": int64(len("mid\n")) + 1<<30*int64(len("0\n"))},
		check: checkWide,
		logs:  []string{"huge.csv: about ", "over the 68719476736 bytes a view that needs a sizing pass may have"},
	},
	// 2^40 paths, walked to the end: each group is a directory once, at
	// the first path listed, and a symbolic link to it elsewhere.
	{file: "diamond.h5",
		links: map[string]string{"top": "L00", "L00/a": "L01", "L00/b": "L01", "L39/b": "L40"},
		names: []string{"top/a/b", "L37/a/b/a/end.csv", "L39/b/end.raw"},
	},
	{file: "bomb.h5",
		eio:   []string{"bomb.raw"},
		zeros: []string{"big.raw"},
		logs:  []string{"chunk of 1073741824 bytes exceeds the 268435456-byte limit"},
	},
	{file: "softbomb.h5",
		links: map[string]string{"bomb/l16": "bomb"},
		eio:   []string{"top"},
		logs:  []string{"more than 16 soft links in one lookup"},
	},
}

// TestHostile mounts each file of the hostile corpus and walks it all:
// no listing fails, every symbolic link resolves inside the mount (step
// by step, so that a dangling link aimed outside is caught too), links
// and refusals are the expected ones, nothing hangs, writes are refused
// and the file stays as it was.
func TestHostile(t *testing.T) {
	dir := hostileCorpus(t)
	for _, c := range hostileCases {
		t.Run(c.file, func(t *testing.T) {
			stop := sampleRSS(t)
			defer stop()
			var logs syncBuffer
			name := filepath.Join(dir, c.file)
			before := fileSum(t, name)
			mp := fusetest.Mount(t, name, &logs)
			done := make(chan struct{})
			go func() {
				defer close(done)
				walkHostile(t, mp)
				refusesWrites(t, mp)
				for p, want := range c.links {
					got, err := filepath.EvalSymlinks(filepath.Join(mp, p))
					if err != nil || got != filepath.Join(mp, want) {
						t.Errorf("%s resolves to %q (%v), want %q", p, got, err, filepath.Join(mp, want))
					}
				}
				for _, p := range c.names {
					if _, err := os.Lstat(filepath.Join(mp, p)); err != nil {
						t.Error(err)
					}
				}
				for _, p := range c.efbig {
					if f, err := os.Open(filepath.Join(mp, p)); !errors.Is(err, syscall.EFBIG) {
						t.Errorf("%s: open: %v, want EFBIG", p, err)
						if err == nil {
							f.Close()
						}
					}
				}
				for p, want := range c.sizes {
					openedSize(t, filepath.Join(mp, p), want)
				}
				for _, p := range c.zeros {
					allZero(t, filepath.Join(mp, p))
				}
				for p, want := range c.tails {
					endsWith(t, filepath.Join(mp, p), want)
				}
				if c.check != nil {
					c.check(t, mp)
				}
				for p, want := range c.xattrs {
					xattrsAnswer(t, filepath.Join(mp, p), want)
				}
				for _, p := range c.eio {
					if _, err := os.ReadFile(filepath.Join(mp, p)); !errors.Is(err, syscall.EIO) {
						t.Errorf("%s: read: %v, want EIO", p, err)
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(hangLimit):
				t.Fatalf("%s: walking the mount took over %v", c.file, hangLimit)
			}
			if fileSum(t, name) != before {
				t.Errorf("%s changed while mounted", c.file)
			}
			for _, want := range c.logs {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("log has no %q:\n%s", want, logs.String())
				}
			}
			for _, want := range c.once {
				if n := strings.Count(logs.String(), want); n != 1 {
					t.Errorf("log has %q %d times, want once:\n%s", want, n, logs.String())
				}
			}
		})
	}
}

// walkHostile walks the mount mp without following symbolic links: every directory lists, every
// extended attribute answers and every symbolic link stays inside mp.
func walkHostile(t *testing.T, mp string) {
	err := filepath.WalkDir(mp, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Errorf("walk %s: %v", p, err)
			return nil
		}
		if d.Type()&fs.ModeSymlink == 0 {
			xattrsAnswer(t, p, nil)
			return nil
		}
		if err := within(mp, p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && real != mp && !strings.HasPrefix(real, mp+"/") {
			t.Errorf("%s resolves to %s, outside the mount %s", p, real, mp)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// refusesWrites checks that the read-only mount mp refuses a new file, a
// write into every regular file at its top level, a new directory, a
// removal, a rename and a new extended attribute.
func refusesWrites(t *testing.T, mp string) {
	es, err := os.ReadDir(mp)
	if err != nil {
		t.Error(err)
		return
	}
	for _, e := range es {
		p := filepath.Join(mp, e.Name())
		if e.Type().IsRegular() {
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.Close()
				t.Errorf("%s opens for writing", p)
			}
		}
		if err := os.Remove(p); err == nil {
			t.Errorf("%s removed", p)
		}
		if err := os.Rename(p, p+".moved"); err == nil {
			t.Errorf("%s renamed", p)
		}
	}
	if f, err := os.Create(filepath.Join(mp, "new.csv")); err == nil {
		f.Close()
		t.Error("a new file was created")
	}
	if err := os.Mkdir(filepath.Join(mp, "new"), 0o755); err == nil {
		t.Error("a new directory was made")
	}
	if err := syscall.Setxattr(mp, "user.new", []byte("1"), 0); err == nil {
		t.Error("a new extended attribute was set")
	}
}

// fileSum returns the SHA-256 of file name.
func fileSum(t *testing.T, name string) [sha256.Size]byte {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// openedSize opens p and checks that its size is then want.
func openedSize(t *testing.T, p string, want int64) {
	f, err := os.Open(p)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	if st, err := os.Stat(p); err != nil || st.Size() != want {
		t.Errorf("%s: size %v (%v) once opened, want %d", p, st, err, want)
	}
}

// allZero reads p whole and checks that every byte is 0.
func allZero(t *testing.T, p string) {
	f, err := os.Open(p)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		k, err := f.Read(buf)
		if i := bytes.IndexFunc(buf[:k], func(r rune) bool { return r != 0 }); i >= 0 {
			t.Errorf("%s: byte %d is not 0", p, n+int64(i))
			return
		}
		n += int64(k)
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Errorf("%s: read at %d: %v", p, n, err)
			return
		}
	}
}

// endsWith reads p whole and checks that it is as long as its size
// says and ends with tail.
func endsWith(t *testing.T, p, tail string) {
	start := time.Now()
	f, err := os.Open(p)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Error(err)
		return
	}
	b, err := io.ReadAll(f)
	switch {
	case err != nil:
		t.Error(err)
	case int64(len(b)) != st.Size():
		t.Errorf("%s: read %d bytes, size %d once opened", p, len(b), st.Size())
	case !strings.HasSuffix(string(b), tail):
		t.Errorf("%s ends with %q, want %q", p, b[max(0, len(b)-len(tail)):], tail)
	}
	t.Logf("%s: %d bytes read in %v", filepath.Base(p), len(b), time.Since(start))
}

// xattrsAnswer lists the extended attributes of p and reads each: every
// one answers (with E2BIG past the documented limit); want, when set,
// holds exactly the names p must have and their values.
func xattrsAnswer(t *testing.T, p string, want map[string]string) {
	n, err := syscall.Listxattr(p, nil)
	if err != nil {
		t.Errorf("listxattr %s: %v", p, err)
		return
	}
	buf := make([]byte, n)
	if n, err = syscall.Listxattr(p, buf); err != nil {
		t.Errorf("listxattr %s: %v", p, err)
		return
	}
	got := map[string]string{}
	for _, name := range strings.Split(strings.TrimSuffix(string(buf[:n]), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		v, err := getxattr(p, name)
		switch {
		case errors.Is(err, syscall.E2BIG):
			v = "E2BIG"
		case err != nil:
			t.Errorf("getxattr %s %s: %v", p, name, err)
		}
		got[name] = v
	}
	if want == nil {
		return
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: xattr %q = %q, want %q", p, name, got[name], v)
		}
	}
	if len(want) == 0 && len(got) != 0 || len(want) > 0 && len(got) < len(want) {
		t.Errorf("%s: xattrs %q, want %q", p, got, want)
	}
}

// getxattr reads the extended attribute name of p.
func getxattr(p, name string) (string, error) {
	n, err := syscall.Getxattr(p, name, nil)
	if err != nil {
		return "", err
	}
	buf := make([]byte, n)
	n, err = syscall.Getxattr(p, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// within follows the symbolic link at p (inside mount mp) step by step,
// as the kernel would, and fails if any step leaves mp: a dangling link,
// or one the kernel gives up on (ELOOP), must not point outside either.
func within(mp, p string) error {
	rel, err := filepath.Rel(mp, p)
	if err != nil {
		return err
	}
	var stack []string
	hops := 0
	var walk func(parts []string) error
	walk = func(parts []string) error {
		for _, part := range parts {
			switch part {
			case "", ".":
				continue
			case "..":
				if len(stack) == 0 {
					return errors.New("climbs above the mount")
				}
				stack = stack[:len(stack)-1]
				continue
			}
			cur := filepath.Join(append([]string{mp}, append(stack, part)...)...)
			fi, err := os.Lstat(cur)
			if err != nil {
				return nil // dangling, inside the mount
			}
			if fi.Mode()&fs.ModeSymlink == 0 {
				stack = append(stack, part)
				continue
			}
			if hops++; hops > 40 {
				return nil // the kernel's ELOOP, inside the mount so far
			}
			target, err := os.Readlink(cur)
			if err != nil {
				return err
			}
			if filepath.IsAbs(target) {
				return errors.New("absolute target " + target)
			}
			if err := walk(strings.Split(target, "/")); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(strings.Split(rel, "/"))
}

// sampleRSS samples the test process's resident set (the daemon of its
// mounts) every 20 ms until the returned stop is called, which logs the
// peak and fails the test if it ever exceeded rssBudget.
func sampleRSS(t *testing.T) (stop func()) {
	done := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var max int64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if r := rss(); r > max {
				max = r
			}
			select {
			case <-done:
				peak <- max
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		max := <-peak
		t.Logf("peak RSS %d MiB (budget %d MiB)", max>>20, rssBudget>>20)
		if max == 0 || max > rssBudget {
			t.Errorf("peak RSS %d MiB, budget %d MiB", max>>20, rssBudget>>20)
		}
	}
}

// rss returns the resident set of this process in bytes (0 if unknown).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			return kb << 10
		}
	}
	return 0
}

// syncBuffer is a log writer safe for the file system's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
