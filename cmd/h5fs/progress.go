package main

import (
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar on stderr while it is a terminal; on
// anything else (a pipe, a file, a CI log) it shows nothing.
type progress struct {
	bar  *progressbar.ProgressBar
	stop chan struct{}
}

// newProgress starts a progress bar for total units (named unit).
func newProgress(total int64, unit string) *progress {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return &progress{}
	}
	p := &progress{stop: make(chan struct{}), bar: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionShowIts(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
	// The elapsed time moves on during one long step too.
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.bar.Add64(0)
			}
		}
	}()
	return p
}

// step names what is being done now.
func (p *progress) step(what string) {
	if p.bar != nil {
		p.bar.Describe(what)
	}
}

// add counts n units done.
func (p *progress) add(n int64) {
	if p.bar != nil {
		p.bar.Add64(n)
	}
}

// clear takes the bar off the line before other output; the next add
// draws it again.
func (p *progress) clear() {
	if p.bar != nil {
		p.bar.Clear()
	}
}

// finish removes the bar.
func (p *progress) finish() {
	if p.bar != nil {
		close(p.stop)
		p.bar.Finish()
	}
}
