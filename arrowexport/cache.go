package arrowexport

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Cache is a directory of sidecar files that keep the results of data
// passes (exact sizes, row→byte offset tables, footers) so that a later
// mount of the same HDF5 file needs no data pass. Entries are keyed to the
// file's identity (FileID), so a changed file never meets a stale entry.
type Cache struct {
	dir string
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
	return &Cache{dir: dir}, nil
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
// Options.Key.
func (id FileID) Key(objPath string) string {
	return fmt.Sprintf("%q %d %d %d %q", id.Path, id.Size, id.ModTime, id.Inode, objPath)
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

// file is where the entry for key and kind lives. kind names the view's
// format and layout version, so a renderer change invalidates old entries.
func (c *Cache) file(key, kind string) string {
	h := sha256.Sum256([]byte(kind + "\x00" + key))
	name := hex.EncodeToString(h[:])
	return filepath.Join(c.dir, name[:2], name[2:]+".gob")
}

// load decodes the entry for (key, kind) into v; false if there is none
// or it does not decode. The entry records its key in full, so a hash
// collision reads as a miss.
func (o Options) load(kind string, v any) bool {
	if o.Cache == nil || o.Key == "" {
		return false
	}
	b, err := os.ReadFile(o.Cache.file(o.Key, kind))
	if err != nil {
		return false
	}
	dec := gob.NewDecoder(bytes.NewReader(b))
	var key string
	if dec.Decode(&key) != nil || key != kind+"\x00"+o.Key {
		return false
	}
	return dec.Decode(v) == nil
}

// store writes the entry for (key, kind) atomically. Failing to store is
// not an error for the view; the caller may log it.
func (o Options) store(kind string, v any) error {
	if o.Cache == nil || o.Key == "" {
		return nil
	}
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	if err := enc.Encode(kind + "\x00" + o.Key); err != nil {
		return err
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	path := o.Cache.file(o.Key, kind)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
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
