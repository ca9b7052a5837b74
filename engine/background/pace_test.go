package background

import (
	"testing"
	"time"
)

// TestPacerDelay: a change after a quiet spell waits First; one during
// a burst waits until three times the last pass (paceFactor) has passed
// since it ended, and never more than maxPace, but at least Gap.
func TestPacerDelay(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := map[string]struct {
		first, gap time.Duration
		start, end time.Duration // of the last pass, from t0; none when both are 0
		at         time.Duration // of the change
		want       time.Duration
	}{
		"no pass yet":                       {first: ms(50), at: ms(10), want: ms(50)},
		"no pass yet, no first wait":        {at: ms(10), want: 0},
		"right after a 100 ms pass":         {first: ms(50), start: 0, end: ms(100), at: ms(100), want: ms(300)},
		"during the wait of a 100 ms pass":  {first: ms(50), start: 0, end: ms(100), at: ms(200), want: ms(200)},
		"near the end of that wait":         {first: ms(50), start: 0, end: ms(100), at: ms(380), want: ms(50)},
		"after a quiet spell":               {first: ms(50), start: 0, end: ms(100), at: ms(2000), want: ms(50)},
		"after a quiet spell, no first":     {start: 0, end: ms(100), at: ms(2000), want: 0},
		"right after a pass of 0.5 s":       {first: ms(50), start: 0, end: ms(500), at: ms(500), want: ms(1500)},
		"right after a pass of 2 s":         {first: ms(50), start: 0, end: ms(2000), at: ms(2000), want: maxPace},
		"a short pass after a long one":     {first: ms(50), start: ms(25000), end: ms(25001), at: ms(25001), want: ms(50)},
		"a pass taking no time at all":      {start: ms(7), end: ms(7), at: ms(7), want: 0},
		"the wait of a pass, without first": {start: 0, end: ms(10), at: ms(20), want: ms(20)},
		"a gap after a short pass":          {gap: ms(1000), start: 0, end: ms(10), at: ms(20), want: ms(990)},
		"a long pass beyond the gap":        {gap: ms(100), start: 0, end: ms(100), at: ms(100), want: ms(300)},
		"after the gap":                     {gap: ms(1000), start: 0, end: ms(10), at: ms(1500), want: 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := Pacer{First: tc.first, Gap: tc.gap}
			if tc.start != 0 || tc.end != 0 {
				p.Done(t0.Add(tc.start), t0.Add(tc.end))
			}
			if got := p.delay(t0.Add(tc.at)); got != tc.want {
				t.Errorf("delay = %v, want %v", got, tc.want)
			}
		})
	}
}
