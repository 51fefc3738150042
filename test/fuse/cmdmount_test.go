package fuse_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// nobody is the unprivileged user the non-root mount tests run as.
const nobody = 65534

// h5fsBinary is fusetest.Binary for the kernel mount tests, which need
// root.
func h5fsBinary(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("kernel mount tests need root")
	}
	return fusetest.Binary(t)
}

// openDir returns a new directory every user can enter, owned by uid, and
// a copy there of the HDF5 file src readable by all.
func openDir(t *testing.T, uid int, src string) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(mp, uid, uid); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// runAs runs a command as user uid (0: as the test) with env added to the
// environment and returns its exit status, stdout and stderr.
func runAs(t *testing.T, uid int, env []string, name string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	if uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
		cmd.Dir = "/"
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// The background process keeps no descriptor of ours: Run returns
	// as soon as h5fs itself does.
	done := make(chan error, 1)
	go func() { done <- cmd.Run() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%s %v did not return", name, args)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// awaitUnmounted waits for mp to be no mount point any more.
func awaitUnmounted(t *testing.T, mp string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if ok, _ := fusetest.Mounted(mp); !ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("%s is still mounted", mp)
}

// cleanupMount unmounts mp at the end of the test, if still mounted.
func cleanupMount(t *testing.T, mp string) {
	t.Cleanup(func() {
		if ok, _ := fusetest.Mounted(mp); ok {
			exec.Command("umount", "-l", mp).Run()
		}
	})
}

// owner returns the owner and group of path.
func owner(t *testing.T, path string) (uint32, uint32) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Uid, st.Gid
}

// TestMountCommand mounts with `h5fs mount` as root: the command returns
// once the mount is ready and says how to unmount; files belong to the
// mounting user or to uid=/gid=; failures exit 1 with the reason; the log
// goes to --log-file; umount ends the background process.
func TestMountCommand(t *testing.T) {
	bin := h5fsBinary(t)
	dir, file := openDir(t, 0, filepath.Join(fusetest.OwnCorpus, "hep_tables.h5"))
	mp := filepath.Join(dir, "mnt")
	cleanupMount(t, mp)

	code, out, errs := runAs(t, 0, nil, bin, "mount", file, mp)
	if code != 0 {
		t.Fatalf("h5fs mount: status %d: %s", code, errs)
	}
	if !strings.Contains(out, "unmount with: umount "+mp) {
		t.Errorf("mount printed %q; want the umount hint", out)
	}
	if ok, _ := fusetest.Mounted(mp); !ok {
		t.Fatalf("h5fs mount returned 0 but %s is not mounted", mp)
	}
	if uid, gid := owner(t, filepath.Join(mp, ".meta.json")); uid != 0 || gid != 0 {
		t.Errorf(".meta.json owned by %d:%d; want 0:0 (the mounting user)", uid, gid)
	}
	if b, err := os.ReadFile(filepath.Join(mp, ".meta.json")); err != nil || len(b) == 0 {
		t.Errorf("read .meta.json: %v (%d bytes)", err, len(b))
	}
	if code, _, errs := runAs(t, 0, nil, "umount", mp); code != 0 {
		t.Fatalf("umount: %s", errs)
	}
	awaitUnmounted(t, mp)

	log := filepath.Join(dir, "h5fs.log")
	broken := filepath.Join(fusetest.OwnCorpus, "broken_tables.h5")
	code, _, errs = runAs(t, 0, nil, bin, "mount", "-o", "ro,uid=4242,gid=4343", "--log-file", log, broken, mp)
	if code != 0 {
		t.Fatalf("h5fs mount -o uid,gid: status %d: %s", code, errs)
	}
	if uid, gid := owner(t, mp); uid != 4242 || gid != 4343 {
		t.Errorf("mount root owned by %d:%d; want 4242:4343", uid, gid)
	}
	filepath.WalkDir(mp, func(string, os.DirEntry, error) error { return nil })
	exec.Command("umount", mp).Run()
	awaitUnmounted(t, mp)
	if b, _ := os.ReadFile(log); !bytes.Contains(b, []byte("h5fs: ")) {
		t.Errorf("--log-file %s holds %q; want the mount's log lines", log, b)
	}

	notHDF5 := filepath.Join(dir, "notes.h5")
	os.WriteFile(notHDF5, []byte("not an HDF5 file\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(dir, "missing.h5"), mp}, "no such file"},
		{[]string{notHDF5, mp}, "notes.h5"},
		{[]string{file, filepath.Join(dir, "nomnt")}, "nomnt"},
		{[]string{"-o", "exotic", file, mp}, `"exotic"`},
	} {
		code, _, errs := runAs(t, 0, nil, bin, append([]string{"mount"}, c.args...)...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("h5fs mount %v: status %d, stderr %q; want 1 and a reason naming %s", c.args, code, errs, c.want)
		}
		if ok, _ := fusetest.Mounted(mp); ok {
			t.Errorf("h5fs mount %v failed but left a mount", c.args)
			exec.Command("umount", mp).Run()
		}
	}
}

// TestMountAllowOther checks that only allow_other lets another user in.
func TestMountAllowOther(t *testing.T) {
	bin := h5fsBinary(t)
	dir, file := openDir(t, 0, filepath.Join(fusetest.OwnCorpus, "hep_tables.h5"))
	mp := filepath.Join(dir, "mnt")
	cleanupMount(t, mp)
	for _, opts := range []string{"ro", "ro,allow_other"} {
		if code, _, errs := runAs(t, 0, nil, bin, "mount", "-o", opts, file, mp); code != 0 {
			t.Fatalf("h5fs mount -o %s: %s", opts, errs)
		}
		code, _, errs := runAs(t, nobody, nil, "cat", filepath.Join(mp, ".meta.json"))
		if allow := opts != "ro"; (code == 0) != allow {
			t.Errorf("-o %s: another user's cat: status %d (%s); want success %v", opts, code, strings.TrimSpace(errs), allow)
		}
		exec.Command("umount", mp).Run()
		awaitUnmounted(t, mp)
	}
}

// TestMountNonRoot mounts as an unprivileged user (nobody, given access
// to /dev/fuse for the test): the mount goes through fusermount3, files
// belong to that user, and the hint names fusermount3 -u, which works; a
// mount fusermount3 refuses fails with its reason.
func TestMountNonRoot(t *testing.T) {
	bin := h5fsBinary(t)
	if out, err := exec.Command("setfacl", "-m", "u:nobody:rw", "/dev/fuse").CombinedOutput(); err != nil {
		t.Fatalf("setfacl (package acl) on /dev/fuse: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("setfacl", "-x", "u:nobody", "/dev/fuse").Run() })
	dir, file := openDir(t, nobody, filepath.Join(fusetest.OwnCorpus, "hep_tables.h5"))
	mp := filepath.Join(dir, "mnt")
	cleanupMount(t, mp)
	code, out, errs := runAs(t, nobody, nil, bin, "mount", file, mp)
	if code != 0 {
		t.Fatalf("h5fs mount as nobody: status %d: %s", code, errs)
	}
	if !strings.Contains(out, "fusermount3 -u "+mp) {
		t.Errorf("mount printed %q; want the fusermount3 -u hint", out)
	}
	// Only the mounting user sees into the mount, not even root.
	code, out, errs = runAs(t, nobody, nil, "stat", "-c", "%u:%g", filepath.Join(mp, ".meta.json"), filepath.Join(mp, "empty"))
	if want := "65534:65534\n65534:65534\n"; code != 0 || out != want {
		t.Errorf("stat as nobody: %q %s; want %q", out, errs, want)
	}
	if code, _, errs := runAs(t, nobody, nil, "cat", filepath.Join(mp, ".meta.json")); code != 0 {
		t.Errorf("cat as nobody: %s", errs)
	}
	if code, _, errs := runAs(t, nobody, nil, "fusermount3", "-u", mp); code != 0 {
		t.Errorf("fusermount3 -u as nobody: %s", errs)
	}
	awaitUnmounted(t, mp)

	// A mount fusermount3 refuses fails with fusermount3's reason, not
	// only its exit code.
	theirs := filepath.Join(dir, "rootmnt")
	if err := os.Mkdir(theirs, 0o755); err != nil {
		t.Fatal(err)
	}
	cleanupMount(t, theirs)
	code, _, errs = runAs(t, nobody, nil, bin, "mount", file, theirs)
	if code != 1 || !strings.Contains(errs, "no write access to mountpoint") {
		t.Errorf("h5fs mount as nobody on root's directory: status %d, stderr %q; want 1 and fusermount3's reason", code, errs)
	}
}

// TestMountHelper mounts the way /etc/fstab does: `mount -t fuse.h5fs
// FILE DIR -o ro,allow_other`, through a /sbin/mount.fuse.h5fs link to
// h5fs, and through mount.fuse3 running h5fs from the PATH; without "ro"
// (mount(8) then passes "rw") the mount is read-only too.
func TestMountHelper(t *testing.T) {
	bin := h5fsBinary(t)
	dir, file := openDir(t, 0, filepath.Join(fusetest.OwnCorpus, "hep_tables.h5"))
	mp := filepath.Join(dir, "mnt")
	cleanupMount(t, mp)

	// One test run at a time owns the helper link.
	lock, err := os.OpenFile("/tmp/h5fs-mount-helper.lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	const helper = "/sbin/mount.fuse.h5fs"
	os.Remove(helper)
	if err := os.Symlink(bin, helper); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(helper)

	check := func(how string, code int, errs string) {
		t.Helper()
		if code != 0 {
			t.Fatalf("%s: status %d: %s", how, code, errs)
		}
		ok, opts := fusetest.Mounted(mp)
		if !ok || !strings.Contains(opts, "allow_other") || !strings.HasPrefix(opts, "ro") {
			t.Errorf("%s: mounted %v with %q; want ro and allow_other", how, ok, opts)
		}
		if code, _, errs := runAs(t, nobody, nil, "cat", filepath.Join(mp, ".meta.json")); code != 0 {
			t.Errorf("%s: another user's cat: %s", how, errs)
		}
		exec.Command("umount", mp).Run()
		awaitUnmounted(t, mp)
	}
	code, _, errs := runAs(t, 0, nil, "mount", "-t", "fuse.h5fs", file, mp, "-o", "ro,allow_other")
	check("mount -t fuse.h5fs", code, errs)
	code, _, errs = runAs(t, 0, []string{"PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH")}, "/sbin/mount.fuse3", file, mp, "-t", "fuse.h5fs", "-o", "ro,allow_other,nofail")
	check("mount.fuse3 running h5fs", code, errs)
	// Without "ro" (an fstab line with "defaults"), mount(8) passes "rw":
	// the mount must stay read-only all the same.
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runAs(t, 0, nil, "mount", "-t", "fuse.h5fs", file, mp); code != 0 {
		t.Fatalf("mount -t fuse.h5fs without options: status %d: %s", code, errs)
	}
	csv := filepath.Join(mp, "run", "events.csv")
	if f, err := os.OpenFile(csv, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		f.Close()
		t.Errorf("mount -t fuse.h5fs without options: %s opens for appending; want a read-only mount", csv)
	}
	exec.Command("umount", mp).Run()
	awaitUnmounted(t, mp)
	if after, _ := os.ReadFile(file); !bytes.Equal(after, before) {
		t.Errorf("mount -t fuse.h5fs without options changed %s", file)
	}
	code, _, errs = runAs(t, 0, nil, "mount", "-t", "fuse.h5fs", filepath.Join(dir, "missing.h5"), mp, "-o", "ro")
	if code == 0 || !strings.Contains(errs, "missing.h5") {
		t.Errorf("mount -t fuse.h5fs of a missing file: status %d, %q; want failure naming the file", code, errs)
	}
}
