package fuse_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// debianPlugins is where Debian's HDF5 filter plugin packages put their
// libraries (hdf5-filter-plugin, hdf5-filter-plugin-blosc-serial,
// hdf5-filter-plugin-zfp-serial, bitshuffle; scripts/test.sh installs them).
const debianPlugins = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins"

// pluginPath returns a folder of links to the named plugins of
// debianPlugins, for HDF5_PLUGIN_PATH: Debian's liblzf_filter.so fails to
// load and stops libhdf5's plugin search, so the folder holds only these.
func pluginPath(t *testing.T, libs ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plugins")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, so := range libs {
		if err := os.Symlink(filepath.Join(debianPlugins, so), filepath.Join(dir, so)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPluginFiltersMount writes datasets of several chunks through
// Debian's filter plugins (testdata/plugins.py: bitshuffle with and
// without LZ4, bzip2, Blosc's snappy codec, PyTables' LZO with shuffle),
// mounts the file and compares each .raw view with what libhdf5 reads
// through the same plugins.
func TestPluginFiltersMount(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(python, "testdata/plugins.py", dir)
	cmd.Env = append(os.Environ(), "HDF5_PLUGIN_PATH="+pluginPath(t, "libh5bshuf.so", "libh5bz2.so", "libH5Zblosc.so"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testdata/plugins.py (python3-h5py, python3-tables and the plugin packages, from scripts/test.sh): %v\n%s", err, out)
	}
	name := filepath.Join(dir, "plugins.h5")
	mp := fusetest.MountFile(t, name, nil)
	for _, p := range []string{"bshuf", "g/bshuf_lz4", "bzip2", "blosc_snappy", "lzo"} {
		want, err := os.ReadFile(name + "." + strings.ReplaceAll(p, "/", "_"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(fusetest.MountPath(mp, "/"+p) + ".raw")
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s.raw: %d bytes differ from libhdf5's %d", p, len(got), len(want))
		}
	}
}
