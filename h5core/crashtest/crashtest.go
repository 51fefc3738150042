// Package crashtest checks crash safety by prefix replay. A Recorder is
// an h5core.FS that performs every operation on the real files and
// records the mutations (writes, truncations, fsyncs, creations,
// removals, directory fsyncs). Replay then rebuilds, from the files'
// contents before the recorded operations, the state a crash could leave
// after every prefix of them: all of the prefix applied, and for each
// file (and the directory) the variant where its writes since its last
// fsync were lost; and, since the disk may reorder what it was not told
// to order, where the prefix ends before an fsync (or ends the record),
// for each write since its file's last fsync the variant where that
// write alone was lost and the later ones kept. Each state is written
// to a directory of its own; Check rolls it back with h5core.RecoverFS
// and hands what libhdf5 sees before and after recovery to a predicate.
package crashtest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/h5fs/h5fs/h5core"
)

// OpKind is what one recorded operation did.
type OpKind int

// Operation kinds.
const (
	OpWrite    OpKind = iota // Data written at Off
	OpTruncate               // size set to Off
	OpSync                   // the file's content made durable
	OpCreate                 // the file created (a directory entry)
	OpRemove                 // the file removed (a directory entry)
	OpSyncDir                // directory entries made durable
)

func (k OpKind) String() string {
	return [...]string{"write", "truncate", "sync", "create", "remove", "syncdir"}[k]
}

// Op is one recorded operation on the file Name (for OpSyncDir, the
// directory).
type Op struct {
	Kind OpKind
	Name string
	Off  int64
	Data []byte
}

func (o Op) String() string {
	if o.Kind == OpWrite {
		return fmt.Sprintf("%s %s %d bytes at %#x", o.Kind, filepath.Base(o.Name), len(o.Data), o.Off)
	}
	return fmt.Sprintf("%s %s %d", o.Kind, filepath.Base(o.Name), o.Off)
}

// Recorder is an h5core.FS over the operating system that records every
// mutation. DropSync, when set, names files whose fsyncs are performed
// but not recorded: the replay then treats them as missing, which is how
// a test shows the harness catches a forgotten barrier.
type Recorder struct {
	DropSync func(name string) bool

	mu  sync.Mutex
	ops []Op
}

// Ops returns the operations recorded so far.
func (r *Recorder) Ops() []Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Op(nil), r.ops...)
}

func (r *Recorder) add(o Op) {
	r.mu.Lock()
	r.ops = append(r.ops, o)
	r.mu.Unlock()
}

// DropNthSync returns a DropSync that drops the n-th fsync (from 1) of
// the files whose name ends in suffix: the record of a writer that
// forgot that one ordering point. Counting is safe across goroutines.
func DropNthSync(suffix string, n int) func(name string) bool {
	var count atomic.Int32
	return func(name string) bool {
		return strings.HasSuffix(name, suffix) && count.Add(1) == int32(n)
	}
}

// OpenFile implements h5core.FS.
func (r *Recorder) OpenFile(name string, flag int, perm fs.FileMode) (h5core.FSFile, error) {
	_, statErr := os.Stat(name)
	f, err := h5core.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	if flag&os.O_CREATE != 0 && errors.Is(statErr, fs.ErrNotExist) {
		r.add(Op{Kind: OpCreate, Name: name})
	}
	if flag&os.O_TRUNC != 0 {
		r.add(Op{Kind: OpTruncate, Name: name})
	}
	return &recFile{FSFile: f, r: r, name: name}, nil
}

// Remove implements h5core.FS.
func (r *Recorder) Remove(name string) error {
	if err := h5core.OSFS.Remove(name); err != nil {
		return err
	}
	r.add(Op{Kind: OpRemove, Name: name})
	return nil
}

// SyncDir implements h5core.FS.
func (r *Recorder) SyncDir(dir string) error {
	r.add(Op{Kind: OpSyncDir, Name: dir})
	return nil
}

type recFile struct {
	h5core.FSFile
	r    *Recorder
	name string
}

func (f *recFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.FSFile.WriteAt(p, off)
	if n > 0 {
		f.r.add(Op{Kind: OpWrite, Name: f.name, Off: off, Data: append([]byte(nil), p[:n]...)})
	}
	return n, err
}

func (f *recFile) Truncate(size int64) error {
	if err := f.FSFile.Truncate(size); err != nil {
		return err
	}
	f.r.add(Op{Kind: OpTruncate, Name: f.name, Off: size})
	return nil
}

// Sync records the fsync without performing it: durability is what the
// replay models, and real fsyncs would only make tests slow.
func (f *recFile) Sync() error {
	if f.r.DropSync == nil || !f.r.DropSync(f.name) {
		f.r.add(Op{Kind: OpSync, Name: f.name})
	}
	return nil
}

// Snapshot holds the contents of files before the recorded operations,
// by path; a path mapped to nil did not exist.
type Snapshot map[string][]byte

// Take reads the named files (missing ones become nil).
func Take(paths ...string) (Snapshot, error) {
	s := Snapshot{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			s[p] = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		s[p] = b
	}
	return s, nil
}

// Crash is one state a crash could leave.
type Crash struct {
	Point  int    // operations applied: Ops[:Point] (minus the lost ones)
	Lost   string // the file (or directory) whose unsynced operations were lost; "" for none
	LostOp int    // the one unsynced write lost (Lost is ""); -1 for none
	Dir    string // where the state's files were written, under their base names
}

// String names the crash for test failures.
func (c Crash) String() string {
	lost := "nothing lost"
	switch {
	case c.Lost != "":
		lost = "unsynced " + filepath.Base(c.Lost) + " lost"
	case c.LostOp >= 0:
		lost = fmt.Sprintf("unsynced op %d alone lost", c.LostOp+1)
	}
	return fmt.Sprintf("crash after op %d (%s)", c.Point, lost)
}

// Path returns where the state holds the file originally at path.
func (c Crash) Path(path string) string { return filepath.Join(c.Dir, filepath.Base(path)) }

// Replay writes every crash state of ops, starting from before, into
// subdirectories of dir, and returns them: every prefix, with the
// unsynced operations of one file (or of the directory) lost, and, just
// before each fsync and at the end, with one unsynced write alone lost
// and the later ones kept (the disk reordered them). All files must live
// in one directory (the HDF5 file and its journal do).
func Replay(before Snapshot, ops []Op, dir string) ([]Crash, error) {
	var crashes []Crash
	for i := 0; i <= len(ops); i++ {
		variants := []string{""}
		seen := map[string]bool{}
		for _, o := range ops[:i] {
			key := o.Name
			if o.Kind == OpCreate || o.Kind == OpRemove || o.Kind == OpSyncDir {
				key = "dir"
			}
			if !seen[key] && unsynced(ops[:i], key) {
				seen[key] = true
				variants = append(variants, key)
			}
		}
		var cs []Crash
		for _, lost := range variants {
			cs = append(cs, Crash{Point: i, Lost: lost, LostOp: -1})
		}
		if i == len(ops) || ops[i].Kind == OpSync {
			// Just before a sync, when the most writes are in flight.
			for _, k := range reorderable(ops[:i]) {
				cs = append(cs, Crash{Point: i, LostOp: k})
			}
		}
		for _, c := range cs {
			c.Dir = filepath.Join(dir, fmt.Sprintf("%04d-%d", i, len(crashes)))
			if err := c.write(before, ops[:i]); err != nil {
				return nil, err
			}
			crashes = append(crashes, c)
		}
	}
	return crashes, nil
}

// unsynced reports whether key ("dir" or a file) has operations after
// its last sync.
func unsynced(ops []Op, key string) bool {
	pending := false
	for _, o := range ops {
		switch {
		case key == "dir" && (o.Kind == OpCreate || o.Kind == OpRemove):
			pending = true
		case key == "dir" && o.Kind == OpSyncDir:
			pending = false
		case key != "dir" && o.Name == key && (o.Kind == OpWrite || o.Kind == OpTruncate):
			pending = true
		case key != "dir" && o.Name == key && o.Kind == OpSync:
			pending = false
		}
	}
	return pending
}

// reorderable returns the writes of ops that a crash may lose while
// keeping a later one: those after their file's last sync, in files with
// more than one such write.
func reorderable(ops []Op) []int {
	byFile := map[string][]int{}
	for i, o := range ops {
		switch o.Kind {
		case OpWrite, OpTruncate:
			byFile[o.Name] = append(byFile[o.Name], i)
		case OpSync:
			delete(byFile, o.Name)
		}
	}
	var out []int
	for _, ks := range byFile {
		if len(ks) > 1 {
			for _, k := range ks {
				if ops[k].Kind == OpWrite {
					out = append(out, k)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// lastSync returns, for key, the index of its last sync in ops (-1: none).
func lastSync(ops []Op, key string) int {
	last := -1
	for i, o := range ops {
		if (key == "dir" && o.Kind == OpSyncDir) || (o.Name == key && o.Kind == OpSync) {
			last = i
		}
	}
	return last
}

// write materialises the state: ops applied in order, those of c.Lost
// after its last sync skipped.
func (c Crash) write(before Snapshot, ops []Op) error {
	files := map[string][]byte{}
	exists := map[string]bool{}
	for p, b := range before {
		if b != nil {
			files[p] = append([]byte(nil), b...)
			exists[p] = true
		}
	}
	cut := len(ops)
	if c.Lost != "" {
		cut = lastSync(ops, c.Lost)
	}
	for i, o := range ops {
		isDir := o.Kind == OpCreate || o.Kind == OpRemove
		lost := c.Lost != "" && i > cut && ((isDir && c.Lost == "dir") || (!isDir && o.Name == c.Lost))
		if lost || i == c.LostOp {
			continue
		}
		switch o.Kind {
		case OpCreate:
			exists[o.Name] = true
		case OpRemove:
			// its content goes with it: a file created again under the name starts empty
			exists[o.Name], files[o.Name] = false, nil
		case OpWrite:
			b := files[o.Name]
			if end := o.Off + int64(len(o.Data)); end > int64(len(b)) {
				b = append(b, make([]byte, end-int64(len(b)))...)
			}
			copy(b[o.Off:], o.Data)
			files[o.Name] = b
		case OpTruncate:
			b := files[o.Name]
			if o.Off <= int64(len(b)) {
				b = b[:o.Off]
			} else {
				b = append(b, make([]byte, o.Off-int64(len(b)))...)
			}
			files[o.Name] = b
		}
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	for p, ok := range exists {
		if !ok {
			continue
		}
		if err := os.WriteFile(c.Path(p), files[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Check rolls every crash state of the HDF5 file back (h5core.RecoverFS)
// and calls check with what libhdf5 (h5py) saw in the file before and
// after recovery. Files of equal content are read by libhdf5 once. It
// returns the first failure, naming the crash and the operation that
// preceded it.
func Check(crashes []Crash, ops []Op, hdf5 string, check func(c Crash, before, after FileDigest) error) error {
	unique := map[[32]byte]string{} // content → the path digested for it
	var paths []string
	key := func(p string) ([32]byte, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return [32]byte{}, err
		}
		k := sha256.Sum256(b)
		if _, ok := unique[k]; !ok {
			unique[k] = p
			paths = append(paths, p)
		}
		return k, nil
	}
	pre := make([][32]byte, len(crashes))
	post := make([][32]byte, len(crashes))
	for i, c := range crashes {
		p := c.Path(hdf5)
		cp := p + ".before"
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		if err := os.WriteFile(cp, b, 0o644); err != nil {
			return err
		}
		if pre[i], err = key(cp); err != nil {
			return err
		}
		if _, err := h5core.RecoverFS(noSync{}, p, nil); err != nil {
			return fmt.Errorf("%s: recover: %w", c, err)
		}
		if post[i], err = key(p); err != nil {
			return err
		}
	}
	seen, err := Digest(paths...)
	if err != nil {
		return err
	}
	for i, c := range crashes {
		if err := check(c, seen[unique[pre[i]]], seen[unique[post[i]]]); err != nil {
			last := "none"
			if c.Point > 0 {
				last = ops[c.Point-1].String()
			}
			return fmt.Errorf("%s (last op: %s): %w", c, last, err)
		}
	}
	return nil
}

// noSync is the operating system's file system without fsyncs, for
// recovering the replayed states.
type noSync struct{}

func (noSync) OpenFile(name string, flag int, perm fs.FileMode) (h5core.FSFile, error) {
	f, err := h5core.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

func (noSync) Remove(name string) error { return h5core.OSFS.Remove(name) }
func (noSync) SyncDir(string) error     { return nil }

type noSyncFile struct{ h5core.FSFile }

func (noSyncFile) Sync() error { return nil }
