package h5core

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ExtPrefixEnv is the environment variable libhdf5 (and h5core) search for
// the files of external links first: a ':'-separated list of folders, in
// which "${ORIGIN}" stands for the folder of the linking file.
const ExtPrefixEnv = "HDF5_EXT_PREFIX"

// maxExternalFiles bounds how many files the external links of one opened
// file may open.
const maxExternalFiles = 256

// externalFiles are the files external links led to from one file opened
// by Open or NewFile, shared by every file reached from it (so that a cycle
// of links reopens nothing) and closed with it.
type externalFiles struct {
	owner *File // the file whose Close closes the others
	mu    sync.Mutex
	files map[string]*File // by absolute path
}

// externalFile opens (once) the file an external link of f names.
func (f *File) externalFile(name string) (*File, error) { return f.relatedFile(name, ExtPrefixEnv) }

// relatedFile opens (once) a file that f names (an external link's target,
// a virtual dataset's source), found as libhdf5 finds it: an absolute name
// as it is; then the name (without its folders, if it was absolute) in each
// folder of the environment variable prefixEnv, in the folder of f, and in
// the working directory. The file is opened with f's options.
func (f *File) relatedFile(name, prefixEnv string) (*File, error) {
	if name == "" {
		return nil, fmt.Errorf("external link with an empty file name")
	}
	dir := filepath.Dir(f.name)
	var cands []string
	rel := name
	if filepath.IsAbs(name) {
		cands = append(cands, name)
		rel = filepath.Base(name)
	}
	if p := os.Getenv(prefixEnv); p != "" {
		for _, pre := range strings.Split(p, ":") {
			if pre != "" {
				cands = append(cands, filepath.Join(strings.ReplaceAll(pre, "${ORIGIN}", dir), rel))
			}
		}
	}
	cands = append(cands, filepath.Join(dir, rel), rel)
	ext := f.ext
	ext.mu.Lock()
	defer ext.mu.Unlock()
	var errs []string
	for _, c := range cands {
		abs, err := filepath.Abs(c)
		if err != nil {
			continue
		}
		if ef := ext.files[abs]; ef != nil {
			return ef, nil
		}
		if _, err := os.Stat(abs); err != nil {
			continue
		}
		if len(ext.files) >= maxExternalFiles {
			return nil, fmt.Errorf("external file %s: more than %d files opened through external links", name, maxExternalFiles)
		}
		ef, err := OpenWith(abs, f.opt)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		ef.ext = ext
		ext.files[abs] = ef
		return ef, nil
	}
	if errs != nil {
		return nil, fmt.Errorf("external file %s: %s", name, strings.Join(errs, "; "))
	}
	return nil, fmt.Errorf("external file %s not found (looked for %s): %w", name, strings.Join(cands, ", "), os.ErrNotExist)
}

// closeExternal closes the files f's external links opened, when f is the
// file that opened the family.
func (f *File) closeExternal() {
	if f.ext == nil || f.ext.owner != f {
		return
	}
	f.ext.mu.Lock()
	defer f.ext.mu.Unlock()
	for _, ef := range f.ext.files {
		if ef != f && ef.closer != nil {
			ef.closer.Close()
		}
	}
	clear(f.ext.files)
}
