package fusetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// Binary builds cmd/h5fs once per test run into a directory every user
// can read, and returns the binary's path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "h5fs-bin-")
		if buildErr != nil {
			return
		}
		os.Chmod(buildDir, 0o755)
		cmd := exec.Command("go", "build", "-o", filepath.Join(buildDir, "h5fs"), "./cmd/h5fs")
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build cmd/h5fs: %v", buildErr)
	}
	return filepath.Join(buildDir, "h5fs")
}
