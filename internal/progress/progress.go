package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Bar draws "label [=====     ] 12/40" on one terminal line.
type Bar struct {
	w     io.Writer
	label string
	drawn bool
}

// New returns a bar on w when w is a terminal, else nil: logs
// and CI output get no control characters.
func New(w io.Writer, label string) *Bar {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &Bar{w: w, label: label}
}

const barWidth = 30

func (b *Bar) Update(done, total int) {
	if total == 0 {
		return
	}
	full := barWidth * done / total
	fmt.Fprintf(b.w, "\r%s [%s%s] %d/%d", b.label, strings.Repeat("=", full), strings.Repeat(" ", barWidth-full), done, total)
	b.drawn = true
}

// Done clears the bar's line.
func (b *Bar) Done() {
	if b.drawn {
		fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", len(b.label)+barWidth+24))
	}
}
