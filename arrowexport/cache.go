package arrowexport

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Cache is a directory of sidecar files that keep the results of data
// passes (exact sizes, row→byte offset tables, footers) so that a later
// mount of the same HDF5 file needs no data pass. Entries are keyed to the
// file's identity (FileID), so a changed file never meets a stale entry.
// The entries of one file identity share one append-only log, read once
// per Cache: a mount of a file with thousands of views opens one sidecar,
// not thousands.
type Cache struct {
	dir string

	mu   sync.Mutex
	logs map[string]*cacheLog // by the file part of the key
}

// NewCache returns the cache in dir, or in DefaultCacheDir if dir is "".
// The directory is created when the first entry is stored.
func NewCache(dir string) (*Cache, error) {
	if dir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return &Cache{dir: dir, logs: map[string]*cacheLog{}}, nil
}

// DefaultCacheDir is $XDG_CACHE_HOME/h5fs, or the user's cache directory
// (~/.cache/h5fs) when XDG_CACHE_HOME is unset.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "h5fs"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("arrowexport: no cache directory: %w", err)
	}
	return filepath.Join(d, "h5fs"), nil
}

// FileID is the identity of an HDF5 file: any change to it gives a new
// identity.
type FileID struct {
	Path    string
	Size    int64
	ModTime int64 // nanoseconds since the Unix epoch
	Inode   uint64
}

// StatFileID returns the identity of the file at path.
func StatFileID(path string) (FileID, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return FileID{}, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return FileID{}, err
	}
	id := FileID{Path: abs, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.Inode = st.Ino
	}
	return id, nil
}

// Key returns the cache key of a view of the object at objPath in the file
// (for example the HDF5 path of a table, or of a column), to pass as
// Options.Key. The part before the NUL names the file: the entries of
// all its objects share one sidecar.
func (id FileID) Key(objPath string) string {
	// what fmt.Sprintf("%q %d %d %d\x00%s") writes, at a fraction of its
	// cost (a listing makes a key per view)
	b := make([]byte, 0, len(id.Path)+len(objPath)+64)
	b = strconv.AppendQuote(b, id.Path)
	b = append(strconv.AppendInt(append(b, ' '), id.Size, 10), ' ')
	b = append(strconv.AppendInt(b, id.ModTime, 10), ' ')
	b = append(strconv.AppendUint(b, id.Inode, 10), 0)
	return string(append(b, objPath...))
}

// Options are the settings shared by views that need a data pass.
type Options struct {
	// Cache keeps data-pass results across mounts; nil disables it.
	Cache *Cache
	// Key identifies the source of the view (see FileID.Key); "" disables
	// caching for the view.
	Key string
	// Logf, if set, receives problems that do not fail the view, such as
	// a cache entry that could not be stored.
	Logf func(format string, args ...any)
}

// log returns the log holding the entries of key's file.
func (c *Cache) log(key string) *cacheLog {
	file, _, _ := strings.Cut(key, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.logs[file]
	if l == nil {
		h := sha256.Sum256([]byte(file))
		l = &cacheLog{path: filepath.Join(c.dir, hex.EncodeToString(h[:16])+logSuffix)}
		c.logs[file] = l
	}
	return l
}

// load decodes the entry for (key, kind) into v; false if there is none
// or it does not decode.
func (o Options) load(kind string, v any) bool {
	if o.Cache == nil || o.Key == "" {
		return false
	}
	b, ok := o.Cache.log(o.Key).get(kind + "\x00" + o.Key)
	return ok && json.Unmarshal(b, v) == nil
}

// store appends the entry for (key, kind) to its file's log. Failing to
// store is not an error for the view; the caller may log it.
func (o Options) store(kind string, v any) error {
	if o.Cache == nil || o.Key == "" {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := o.Cache.log(o.Key).put(kind+"\x00"+o.Key, b); err != nil {
		return fmt.Errorf("arrowexport: storing cache entry: %w", err)
	}
	return nil
}

// kindOf names a cache entry: the format, its layout version and the
// view's shape parameters that change the rendered bytes.
func kindOf(parts ...string) string { return strings.Join(parts, "/") }

// storeLogged stores an entry, reporting a failure through Logf.
func (o Options) storeLogged(kind string, v any) {
	if err := o.store(kind, v); err != nil && o.Logf != nil {
		o.Logf("arrowexport: %v", err)
	}
}
