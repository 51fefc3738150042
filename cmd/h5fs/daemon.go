package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
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
