package console

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"
)

// stepTimeout bounds one step in the browser: the page's requests, a
// reload of the schemas, a watch event. Generous for a loaded machine;
// docs/performance.md has the measured times.
const stepTimeout = 20 * time.Second

// newBrowser starts headless Chromium for the test and closes it (and
// every process it started) when the test ends.
func newBrowser(t testing.TB) context.Context {
	t.Helper()
	exe := os.Getenv("CHROMIUM")
	if exe == "" {
		exe = "chromium"
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		// As root, Chromium runs only without its sandbox.
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		// specd's certificate is signed by the CA it generated, which the
		// browser does not know; the API client of the test checks it.
		chromedp.IgnoreCertErrors,
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(1280, 900),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancelBrowser := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	if err := chromedp.Do(browser); err != nil {
		cancelAlloc()
		t.Fatalf("start %s: %v", exe, err)
	}
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	return browser
}

// newTab is a new tab of browser (its own sessionStorage), closed when
// the test ends; listeners hear the tab's events too.
func newTab(t testing.TB, browser context.Context, listeners ...func(ev any)) context.Context {
	t.Helper()
	// What the browser says of the page (a blocked request, an error):
	// in the test's log, where a failed step is explained.
	var done atomic.Bool // no t.Logf once the test is over
	tab, cancel := chromedp.NewContext(browser, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*cdplog.EventEntryAdded); ok && !done.Load() {
			t.Logf("browser %s: %s %s", e.Entry.Level, e.Entry.Text, e.Entry.URL)
		}
		for _, l := range listeners {
			l(ev)
		}
	}))
	t.Cleanup(cancel)
	t.Cleanup(func() { done.Store(true) }) // before cancel: cleanups run last first
	// The first run opens the tab, which lives as long as its context:
	// no timeout here.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return tab
}

// run runs actions in tab within stepTimeout, failing the test with what
// step failed.
func run(t testing.TB, tab context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v\n--- the page ---\n%s", what, err, pageText(tab))
	}
}

// pageText is the page's text, to say where a step stopped.
func pageText(tab context.Context) string {
	ctx, cancel := context.WithTimeout(tab, 5*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		return err.Error()
	}
	return text
}

// value runs one action that answers a value, within stepTimeout.
func value[T any](t testing.TB, tab context.Context, what string, action chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// screenshot saves the page as name.png in the test's artifact
// directory.
func screenshot(t testing.TB, tab context.Context, name string) {
	t.Helper()
	png := value(t, tab, "screenshot", chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// login opens the console in tab and logs in with token.
func login(t testing.TB, tab context.Context, s *specd, token, user string) {
	t.Helper()
	run(t, tab, "log in as "+user,
		chromedp.Navigate(s.URL+"/console/"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), token),
		chromedp.Click(chromedp.CSS("#login-form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#nav a[data-resource]")),
		waitText("#whoami", user),
	)
}

// waitURL waits until tab's page is at an address starting with prefix:
// after a click that navigates, which ends the actions on the old page.
func waitURL(t testing.TB, tab context.Context, prefix string) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	var at string
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(tab, time.Second)
		url, err := chromedp.Run(ctx, chromedp.Location())
		cancel()
		if err == nil && strings.HasPrefix(url, prefix) {
			return
		}
		at = url
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the page is at %s, want an address starting with %s", at, prefix)
}

// eventually polls ok until it holds, failing the test with what after
// stepTimeout.
func eventually(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, stepTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// appShown is a JavaScript expression: whether the console (not the
// login form) is on screen, as the browser draws it.
const appShown = `getComputedStyle(document.getElementById("app")).display !== "none"`

// waitText waits until the element of sel contains text.
func waitText(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`(() => { const el = document.querySelector(`+quote(sel)+`); return el && el.textContent.includes(`+quote(text)+`); })()`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(stepTimeout))
}

// quote is s as a JavaScript string literal: JSON's strings are.
func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string always marshals
	}
	return string(b)
}
