package fusetest

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Mounted reports whether mp is an h5fs mount point, with its mount
// options as /proc/self/mounts gives them.
func Mounted(mp string) (bool, string) {
	b, _ := os.ReadFile("/proc/self/mounts")
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) > 3 && f[1] == mp && f[2] == "fuse.h5fs" {
			return true, f[3]
		}
	}
	return false, ""
}

// StartDaemon starts `bin mount -f ARGS... src mp`, a mount daemon in
// the foreground and a process of its own, as a user's mount is, with
// its standard error going to stderr, and returns it once mp is mounted.
// When mp is not mounted after 30 s it kills the process and fails t
// with what the daemon wrote (when stderr is a fmt.Stringer, such as a
// bytes.Buffer). Unmounting and waiting for the process are the
// caller's.
func StartDaemon(t testing.TB, bin string, args []string, src, mp string, stderr io.Writer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append(append([]string{"mount", "-f"}, args...), src, mp)...)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if ok, _ := Mounted(mp); ok {
			return cmd
		}
		if i == 600 {
			cmd.Process.Kill()
			cmd.Wait()
			said := ""
			if s, ok := stderr.(fmt.Stringer); ok {
				said = s.String()
			}
			t.Fatalf("%s did not mount at %s after 30 s: %s", strings.Join(cmd.Args, " "), mp, said)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// StartMount mounts src (an HDF5 file or a directory of them) with the
// h5fs binary bin by StartDaemon at a new temporary directory and returns
// it with the mount's process id. The mount goes away when the test ends.
func StartMount(t testing.TB, bin, src string) (mp string, pid int) {
	t.Helper()
	mp = t.TempDir()
	mount := StartDaemon(t, bin, nil, src, mp, os.Stderr)
	t.Cleanup(func() {
		if err := syscall.Unmount(mp, 0); err != nil {
			t.Errorf("unmount %s: %v", mp, err)
		}
		mount.Wait()
	})
	return mp, mount.Process.Pid
}
