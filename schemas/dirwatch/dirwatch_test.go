package dirwatch_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/specd-io/specd/schemas/dirwatch"
)

const quiet = 80 * time.Millisecond

// start runs a watcher on dir and returns the channel its reports go to.
func start(t *testing.T, dir string, opts dirwatch.Options) <-chan time.Time {
	t.Helper()
	w, err := dirwatch.New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	reports := make(chan time.Time, 100)
	go func() {
		defer close(done)
		w.Run(ctx, func() { reports <- time.Now() })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return reports
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// expectReports waits for n reports and then checks that no more come.
func expectReports(t *testing.T, reports <-chan time.Time, n int) []time.Time {
	t.Helper()
	var got []time.Time
	for len(got) < n {
		select {
		case at := <-reports:
			got = append(got, at)
		case <-time.After(5 * time.Second):
			t.Fatalf("got %d reports, want %d", len(got), n)
		}
	}
	select {
	case <-reports:
		t.Fatalf("more than %d reports", n)
	case <-time.After(3 * quiet):
	}
	return got
}

func TestWatch(t *testing.T) {
	tests := map[string]func(t *testing.T, dir string){
		"new file": func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "a.yaml"), "x")
		},
		"a save in several steps is one report": func(t *testing.T, dir string) {
			p := filepath.Join(dir, "a.yaml")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				if _, err := f.WriteString("line\n"); err != nil {
					t.Fatal(err)
				}
				time.Sleep(quiet / 4)
			}
			f.Close()
			tmp := filepath.Join(dir, ".a.yaml.tmp")
			write(t, tmp, "final")
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		},
		"removed file": func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "old.yaml")); err != nil {
				t.Fatal(err)
			}
		},
		"file in a folder made after the start": func(t *testing.T, dir string) {
			sub := filepath.Join(dir, "new", "deeper")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			// The folder's creation is reported; the write after the
			// report must be seen too.
			time.Sleep(3 * quiet)
			write(t, filepath.Join(sub, "b.yaml"), "x")
		},
		"file in an existing folder": func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "sub", "c.yaml"), "y")
		},
	}
	for name, change := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "old.yaml"), "x")
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			reports := start(t, dir, dirwatch.Options{Quiet: quiet})
			change(t, dir)
			want := 1
			if name == "file in a folder made after the start" {
				want = 2
			}
			expectReports(t, reports, want)
		})
	}
}

func TestChmodIsNoChange(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.yaml")
	write(t, p, "x")
	reports := start(t, dir, dirwatch.Options{Quiet: quiet})
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	expectReports(t, reports, 0)
}

func TestChangesThatNeverPauseAreReported(t *testing.T) {
	dir := t.TempDir()
	maxWait := 4 * quiet
	reports := start(t, dir, dirwatch.Options{Quiet: quiet, MaxWait: maxWait})
	begin := time.Now()
	p := filepath.Join(dir, "busy.yaml")
	for time.Since(begin) < 3*maxWait {
		write(t, p, time.Now().String())
		time.Sleep(quiet / 4)
	}
	select {
	case at := <-reports:
		if d := at.Sub(begin); d > maxWait+2*quiet {
			t.Errorf("first report after %v, want about %v", d, maxWait)
		}
	default:
		t.Fatal("no report while the file kept changing")
	}
}

func TestMissingDir(t *testing.T) {
	if _, err := dirwatch.New(filepath.Join(t.TempDir(), "nope"), dirwatch.Options{}); err == nil {
		t.Fatal("watching a missing directory: no error")
	}
}
