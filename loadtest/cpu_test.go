package loadtest

import (
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	// utime 1234 and stime 56 ticks, after a command name with a space
	// and a parenthesis in it.
	stat := "4242 (spe cd) x) S 1 4242 4242 0 -1 4194560 5000 0 0 0 1234 56 0 0 20 0 12 0 100 0 0"
	got, err := parseStatCPU(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1290 * clockTick; got != want {
		t.Errorf("parseStatCPU = %v, want %v", got, want)
	}
	for _, bad := range []string{"4242 spe cd S 1", "4242 (specd) S 1 2 3", "4242 (specd) S 1 4242 4242 0 -1 4194560 5000 0 0 0 x 56 0"} {
		if _, err := parseStatCPU(bad); err == nil {
			t.Errorf("parseStatCPU(%q): no error", bad)
		}
	}
}

func TestPerOp(t *testing.T) {
	from, to := 2*time.Second, 5*time.Second
	if got := perOp(&from, &to, 300); got == nil || *got != 10*time.Millisecond {
		t.Errorf("perOp = %v, want 10ms", got)
	}
	if perOp(nil, &to, 3) != nil || perOp(&from, nil, 3) != nil || perOp(&from, &to, 0) != nil {
		t.Error("perOp of an unknown reading or no operation is not nil")
	}
}
