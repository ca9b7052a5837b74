package testproc

import (
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"
)

func TestAwaitAndStop(t *testing.T) {
	p, err := Start(exec.Command("sh", "-c", "echo serving at 7; exec sleep 60"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.Await(regexp.MustCompile(`serving at (\d+)`), time.Minute)
	if err != nil || m[1] != "7" {
		t.Fatalf("Await = %q, %v", m, err)
	}
	if !p.Stop(syscall.SIGTERM, time.Minute) || p.Err() == nil || !p.Exited() {
		t.Fatalf("after SIGTERM: exited %v, err %v", p.Exited(), p.Err())
	}
}

// Await gives up when the process ends without the line, with its output.
func TestAwaitExited(t *testing.T) {
	p, err := Start(exec.Command("sh", "-c", "echo starting; exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Await(regexp.MustCompile(`serving`), time.Minute); err == nil {
		t.Fatal("Await matched a line the process never wrote")
	}
	if p.Out().String() != "starting\n" {
		t.Fatalf("output %q", p.Out().String())
	}
}
