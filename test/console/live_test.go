package console

import (
	"context"
	"net/http"
	"strings"
	"testing"

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
