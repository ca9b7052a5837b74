package console

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// liveList follows the widgets of default in tab while another client
// adds, changes and deletes one: each write shows by the list's Table
// watch, with the list's field selector, changing only its own row, and
// the page lists them once. It leaves tab on the widgets of default.
func liveList(t *testing.T, s *specd, tab context.Context, net *netLog) {
	const widgets = "/apis/shop.example.com/v1/namespaces/default/widgets"
	s.mustDo(t, http.MethodPost, widgets, widget("steady", "green"), http.StatusCreated)
	net.reset()
	// The selector leaves out "hidden", in the list and in the watch.
	run(t, tab, "the widgets", chromedp.Navigate(s.URL+"/console/#/r/shop.example.com/v1/widgets?ns=default&fieldSelector=metadata.name%21%3Dhidden"),
		waitText("#list-status", "Live"), waitText("#objects", "steady"))
	eventually(t, "the page watches the widgets", func() bool { return len(net.find(watches(widgets))) > 0 })
	// Marked, to tell whether its row is drawn again.
	run(t, tab, "mark steady's row", chromedp.Evaluate[chromedp.Void](`document.querySelector('#objects tr[data-key="default/steady"]').specdMark = true`))

	s.mustDo(t, http.MethodPost, widgets, widget("hidden", "red"), http.StatusCreated)
	s.mustDo(t, http.MethodPost, widgets, widget("from-elsewhere", "red"), http.StatusCreated)
	row := `#objects tr[data-key="default/from-elsewhere"]`
	run(t, tab, "the new row", waitText(row, "red"))
	if text := value(t, tab, "read the list", chromedp.Text(chromedp.ID("objects"))); strings.Contains(text, "hidden") {
		t.Errorf("the list shows the widget its field selector leaves out: %q", text)
	}
	screenshot(t, tab, "live")
	s.mustDo(t, http.MethodPatch, widgets+"/from-elsewhere", `{"spec":{"color":"blue"}}`, http.StatusOK)
	run(t, tab, "the changed row", waitText(row, "blue"))
	s.mustDo(t, http.MethodDelete, widgets+"/from-elsewhere", "", http.StatusOK)
	run(t, tab, "the row gone", chromedp.Poll[chromedp.Void](`document.querySelector(`+quote(row)+`) === null`))
	if !value(t, tab, "is steady's row the same", chromedp.Evaluate[bool](`document.querySelector('#objects tr[data-key="default/steady"]').specdMark === true`)) {
		t.Error("steady's row was drawn again for other widgets' changes")
	}
	if n := value(t, tab, "count the rows", chromedp.Evaluate[int](`document.querySelectorAll("#objects tbody tr[data-key]").length`)); n != 1 {
		t.Errorf("%d rows shown, want steady's alone", n)
	}

	if got := net.find(lists(widgets)); len(got) != 1 {
		t.Errorf("the page listed the widgets %d times, want once: %v", len(got), got)
	}
	for _, w := range net.find(watches(widgets)) {
		if w.URL.Query().Get("fieldSelector") != "metadata.name!=hidden" || !strings.Contains(w.Accept, "as=Table") ||
			w.URL.Query().Get("resourceVersion") == "" {
			t.Errorf("the watch %v (Accept %q) is not a Table watch from the list's resourceVersion with its selector", w, w.Accept)
		}
	}
	// Another view ends the watch.
	run(t, tab, "the state page", chromedp.Navigate(s.URL+"/console/#/"), waitText("#specd-schemafiles", "shop.example.com"))
	eventually(t, "the watch ended", func() bool {
		for _, w := range net.find(watches(widgets)) {
			if !w.Canceled {
				return false
			}
		}
		return true
	})
	run(t, tab, "back to the widgets", chromedp.Navigate(s.URL+"/console/#/r/shop.example.com/v1/widgets?ns=default"),
		waitText("#list-status", "Live"))
}

// cacheWindow is how many events of a resource specd's watch cache keeps
// for watches from a past resourceVersion (engine/watchcache's
// DefaultWindow): a watch from before them is answered 410 Gone.
const cacheWindow = 1000

// TestListGone takes the page of a list offline, while another client
// writes more widget events than specd keeps for a watch from the page's
// resourceVersion; none of them passes the page's label selector, so
// that resourceVersion stays where it was. specd ends each watch within 2 to
// 4 s (--min-request-timeout 2), so the page's watch ends and it tries
// again, offline, in vain. Back online, its watch is answered 410 Gone,
// and the page lists again, once, and follows the new list.
func TestListGone(t *testing.T) {
	const widgets = "/apis/shop.example.com/v1/namespaces/default/widgets"
	s := startSpecd(t, "--min-request-timeout", "2")
	s.mustDo(t, http.MethodPost, widgets, widget("steady", "green"), http.StatusCreated)
	net := newNetLog()
	tab := newTab(t, newBrowser(t), net.listen)
	login(t, tab, s, adminToken, "alice")
	net.reset()
	run(t, tab, "the widgets", chromedp.Navigate(s.URL+"/console/#/r/shop.example.com/v1/widgets?ns=default&labelSelector=%21churn"),
		waitText("#list-status", "Live"), waitText("#objects", "steady"))
	setOffline(t, tab, true)
	eventually(t, "a watch failed offline", func() bool {
		return len(net.find(func(r *sentRequest) bool { return watches(widgets)(r) && r.Failed })) > 0
	})
	churn(t, s, widgets, cacheWindow+1)
	s.mustDo(t, http.MethodPost, widgets, widget("while-away", "red"), http.StatusCreated)
	setOffline(t, tab, false)
	run(t, tab, "the list read again", waitText("#objects", "while-away"))
	s.mustDo(t, http.MethodPatch, widgets+"/while-away", `{"spec":{"color":"blue"}}`, http.StatusOK)
	run(t, tab, "a change after it, by watch", waitText(`#objects tr[data-key="default/while-away"]`, "blue"))
	if got := net.find(lists(widgets)); len(got) != 2 {
		t.Errorf("the page listed the widgets %d times, want twice (once more after the 410): %v", len(got), got)
	}
	if text := value(t, tab, "read the list", chromedp.Text(chromedp.ID("objects"))); strings.Contains(text, "churn") {
		t.Errorf("the list shows widgets its label selector leaves out: %q", text)
	}
	screenshot(t, tab, "gone")
}

// churn creates n widgets labelled churn, 4 requests at a time (on as
// many objects: patches of one object at a time would race each other).
func churn(t *testing.T, s *specd, widgets string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < n; i += 4 {
				body := fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":"churn-%04d","labels":{"churn":"yes"}},"spec":{"color":"red"}}`, i)
				// Not mustDo: t.Fatal belongs to the test's goroutine.
				code, out, err := s.do(t.Context(), http.MethodPost, widgets, adminToken, body)
				if err != nil || code != http.StatusCreated {
					t.Errorf("create churn-%04d: %d %v %s", i, code, err, out)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// emulateNetworkConditions is DevTools' Network.emulateNetworkConditions,
// which cdproto no longer generates (it is deprecated for
// emulateNetworkConditionsByRule, which this Chromium refuses without a
// URL pattern).
var emulateNetworkConditions = cdp.Command[networkConditions, cdp.Empty]{Method: "Network.emulateNetworkConditions"}

type networkConditions struct {
	Offline            bool    `json:"offline"`
	Latency            float64 `json:"latency"`
	DownloadThroughput float64 `json:"downloadThroughput"`
	UploadThroughput   float64 `json:"uploadThroughput"`
}

// setOffline cuts tab's page off the network, failing the requests it
// has under way, or connects it again: the browser's own emulation of a
// lost network.
func setOffline(t testing.TB, tab context.Context, offline bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, stepTimeout)
	defer cancel()
	_, err := chromedp.Call(ctx, emulateNetworkConditions, networkConditions{Offline: offline, DownloadThroughput: -1, UploadThroughput: -1})
	if err != nil {
		t.Fatalf("offline %v: %v", offline, err)
	}
}
