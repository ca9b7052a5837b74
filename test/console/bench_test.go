package console

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// benchObjects is how many widgets the list of BenchmarkListFirstRows
// holds.
const benchObjects = 10000

// BenchmarkListFirstRows opens the console on a list of 10,000 widgets,
// in a fresh tab each time, logged in already: first-contentful-paint
// the first rows on screen and all 10,000 read (the page's performance
// marks), each from the navigation's start, as the browser measures
// them.
func BenchmarkListFirstRows(b *testing.B) {
	s := startSpecd(b)
	createWidgets(b, s, benchObjects)
	browser := newBrowser(b)
	tab := newTab(b, browser)
	login(b, tab, s, adminToken, "alice")
	var paint, rows, all float64
	for b.Loop() {
		// A new page load each time, in the tab that holds the token.
		t := firstRows(b, tab, s.URL+"/console/?"+fmt.Sprint(time.Now().UnixNano())+"#/r/shop.example.com/v1/widgets")
		paint += t[0]
		rows += t[1]
		all += t[2]
	}
	b.ReportMetric(paint/float64(b.N), "ms-first-paint")
	b.ReportMetric(rows/float64(b.N), "ms-first-rows")
	b.ReportMetric(all/float64(b.N), "ms-all-rows")
}

// firstRows opens url in tab and answers the times of its first paint,
// its first rows and its last page of rows, in ms from the navigation's
// start.
func firstRows(b *testing.B, tab context.Context, url string) []float64 {
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()
	times, err := chromedp.Run(ctx, chromedp.Poll[[]float64](`(() => {
		const rows = performance.getEntriesByName("specd-console:rows");
		const all = performance.getEntriesByName("specd-console:all-rows");
		const paint = performance.getEntriesByName("first-contentful-paint");
		return rows.length && all.length && paint.length ? [paint[0].startTime, rows[0].startTime, all[0].startTime] : null;
	})()`, chromedp.WithPollingInterval(10*time.Millisecond)))
	if err != nil {
		b.Fatalf("no rows: %v", err)
	}
	return times
}

// createWidgets creates n widgets in default, 8 at a time.
func createWidgets(b *testing.B, s *specd, n int) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				code, out, err := s.do(context.Background(), http.MethodPost, "/apis/shop.example.com/v1/namespaces/default/widgets",
					adminToken, widget(fmt.Sprintf("w-%05d", i), "red"))
				if err != nil || code != http.StatusCreated {
					errs <- fmt.Errorf("create w-%05d: %d %v %s", i, code, err, out)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}
