package fuse_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestMountRecoversHotJournal mounts (read-only, `h5fs mount -f`) a file
// that a crash left with a hot rollback journal — a crash state of a
// commit lowering write.h5's NROWS to 3, taken after the overwrite
// reached the file and before the journal was removed — and checks that
// the mount rolled it back before serving anything: it says so on
// stderr, the table shows its 40 rows, and after the unmount the file
// is the original byte for byte and the journal is gone.
func TestMountRecoversHotJournal(t *testing.T) {
	bin := h5fsBinary(t)
	src := filepath.Join(fusetest.OwnCorpus, "write.h5")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := fusetest.CopyFile(t, src)
	snap, err := crashtest.Take(p, h5core.JournalPath(p))
	if err != nil {
		t.Fatal(err)
	}
	rec := &crashtest.Recorder{}
	rw, err := h5core.OpenRWWith(p, h5core.RWOptions{FS: rec})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := rw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.SetAttribute("/t", "NROWS", binary.LittleEndian.AppendUint64(nil, 3)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	crashes, err := crashtest.Replay(snap, rec.Ops(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for _, c := range crashes {
		b, err := os.ReadFile(c.Path(p))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(h5core.JournalPath(c.Path(p))); err == nil && !bytes.Equal(b, orig) {
			name = c.Path(p)
			t.Logf("%s: the file changed, its journal hot", c)
			break
		}
	}
	if name == "" {
		t.Fatal("no crash state leaves a changed file with its journal")
	}

	mp := filepath.Join(filepath.Dir(name), "mnt")
	if err := os.Mkdir(mp, 0o755); err != nil {
		t.Fatal(err)
	}
	cleanupMount(t, mp)
	var stderr bytes.Buffer
	daemon := fusetest.StartDaemon(t, bin, nil, name, mp, &stderr)
	text, err := os.ReadFile(filepath.Join(mp, "t.csv"))
	if err != nil {
		t.Error(err)
	} else if n := strings.Count(string(text), "\n"); n != 41 {
		t.Errorf("t.csv has %d lines, want the header and the 40 rows of the rolled back file", n)
	}
	if err := exec.Command("umount", mp).Run(); err != nil {
		t.Errorf("umount: %v", err)
	}
	if err := daemon.Wait(); err != nil {
		t.Errorf("h5fs mount -f: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "rolled back an interrupted write") {
		t.Errorf("the mount did not say it rolled back the journal: %q", stderr.String())
	}
	now, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(now, orig) {
		t.Error("after the mount the file is not the original")
	}
	if _, err := os.Stat(h5core.JournalPath(name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal is left: %v", err)
	}
}
