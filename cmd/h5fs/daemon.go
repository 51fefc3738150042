package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// readyEnv names the descriptor on which a background mount process
// reports to the h5fs that started it: readyOK once the mount is ready,
// else the reason it failed.
const (
	readyEnv = "H5FS_READY_FD"
	readyOK  = "ok"
)

// startDaemon runs `h5fs mount -f` for src at mp in a new session, in /,
// with its output and log going to logFile (nowhere if empty), and waits
// until it reports the mount ready or failed.
func startDaemon(src, mp, opts, logFile string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(exe, "mount", "-f", "-o", opts, absPath(src), absPath(mp))
	if logFile != "" {
		lf, err := os.OpenFile(logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		defer lf.Close()
		cmd.Stdout, cmd.Stderr = lf, lf
	}
	cmd.Env = append(os.Environ(), readyEnv+"=3")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("start the background mount process: %w", err)
	}
	msg, _ := bufio.NewReader(r).ReadString('\n')
	msg = strings.TrimSpace(msg)
	if msg == readyOK {
		return cmd.Process.Release()
	}
	werr := cmd.Wait()
	if msg != "" {
		return errors.New(msg)
	}
	return fmt.Errorf("the background mount process ended before the mount was ready (%v)", werr)
}

// readyPipe returns the descriptor a background mount process reports on,
// or nil in a mount that was not started by startDaemon.
func readyPipe() *os.File {
	fd, err := strconv.Atoi(os.Getenv(readyEnv))
	if err != nil {
		return nil
	}
	os.Unsetenv(readyEnv)
	return os.NewFile(uintptr(fd), "ready")
}

// reportFailure passes err to the process waiting for the mount (if any
// still is) and returns it.
func reportFailure(ready *os.File, err error) error {
	if err != nil && ready != nil {
		fmt.Fprintln(ready, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return err
}

// withFusermountReason returns mount made to say why it failed: a
// non-root mount goes through fusermount3, which go-fuse runs with h5fs's
// own stderr (nowhere, or the log file, in a background process) and
// which explains a refusal ("user has no write access to mountpoint")
// only there, while go-fuse's error gives just its exit code. So
// descriptor 2 is a pipe while mount runs, and what fusermount3 (or
// anything else) wrote to it is added to the error, and passed on to
// the real stderr.
func withFusermountReason(mount func() (*fuse.Server, error)) func() (*fuse.Server, error) {
	return func() (*fuse.Server, error) {
		restore, err := captureStderr()
		if err != nil {
			return mount()
		}
		server, err := mount()
		if said := restore(); err != nil && said != "" {
			err = fmt.Errorf("%s: %s", strings.TrimSpace(err.Error()), strings.ReplaceAll(said, "\n", "; "))
		}
		return server, err
	}
}

// captureStderr points descriptor 2 at a pipe until the returned function
// is called; that function points it back, copies what was written to it
// meanwhile to the restored descriptor and returns it, trimmed.
func captureStderr() (restore func() string, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, err
	}
	saved, err := syscall.Dup(2)
	if err == nil {
		err = syscall.Dup3(p[1], 2, 0)
		if err != nil {
			syscall.Close(saved)
		}
	}
	syscall.Close(p[1]) // descriptor 2 keeps the pipe's write end
	r := os.NewFile(uintptr(p[0]), "stderr capture")
	if err != nil {
		r.Close()
		return nil, err
	}
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&buf, r)
		r.Close()
		close(done)
	}()
	return func() string {
		syscall.Dup3(saved, 2, 0) // closes the pipe's last write end: the copy ends
		syscall.Close(saved)
		<-done
		os.Stderr.Write(buf.Bytes())
		return strings.TrimSpace(buf.String())
	}, nil
}
