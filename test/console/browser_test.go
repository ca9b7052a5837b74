package console

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

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
// the test ends.
func newTab(t testing.TB, browser context.Context) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
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
