package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// progressBar draws "label [=====     ] 12/40" on one terminal line.
type progressBar struct {
	w     io.Writer
	label string
	drawn bool
}

// newProgressBar returns a bar on w when w is a terminal, else nil: logs
// and CI output get no control characters.
func newProgressBar(w io.Writer, label string) *progressBar {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progressBar{w: w, label: label}
}

const barWidth = 30

func (b *progressBar) update(done, total int) {
	if total == 0 {
		return
	}
	full := barWidth * done / total
	fmt.Fprintf(b.w, "\r%s [%s%s] %d/%d", b.label, strings.Repeat("=", full), strings.Repeat(" ", barWidth-full), done, total)
	b.drawn = true
}

// done clears the bar's line.
func (b *progressBar) done() {
	if b.drawn {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", len(b.label)+barWidth+24))
	}
}
