package cli

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar on stderr shown only when stderr is a
// terminal; otherwise its methods do nothing.
type progress struct{ bar *progressbar.ProgressBar }

func (e *env) newProgress(total int, desc string) *progress {
	f, ok := e.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100_000_000),
	)}
}

func (p *progress) Add(n int) {
	if p.bar != nil {
		_ = p.bar.Add(n)
	}
}

func (p *progress) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

var _ io.Writer = (*os.File)(nil)

// lazyProgress returns a progress callback for work whose total is known
// only once it starts (the bar is made on the first call), and a function
// that finishes the bar.
func (e *env) lazyProgress(desc string) (func(done, total int), func()) {
	var bar *progress
	update := func(done, total int) {
		if bar == nil {
			bar = e.newProgress(total, desc)
		}
		bar.Add(1)
	}
	finish := func() {
		if bar != nil {
			bar.Finish()
		}
	}
	return update, finish
}
