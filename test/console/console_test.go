package console

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestConsole drives the console in headless Chromium against a real
// specd: token login, the discovery tree, specd's state with a broken
// schema file, the leading replica and the etcd member, a list that follows another client's write, create from
// YAML, one object in both versions of its kind, a 422 shown at its field, and a viewer who sees no edit or
// delete.
func TestConsole(t *testing.T) {
	s := startSpecd(t)
	s.mustDo(t, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", viewBinding, http.StatusCreated)
	browser := newBrowser(t)
	admin := newTab(t, browser)

	t.Run("token login", func(t *testing.T) {
		login(t, admin, s, adminToken, "alice")
		screenshot(t, admin, "login")
	})
	t.Run("discovery tree", func(t *testing.T) {
		resources := value(t, admin, "read the navigation", chromedp.Evaluate[[]string](
			`[...document.querySelectorAll("#nav a[data-resource]")].map(a => a.dataset.resource)`))
		for _, want := range []string{"widgets.shop.example.com", "books.library.example.com", "namespaces.", "schemafiles.status.specd.io"} {
			if !contains(resources, want) {
				t.Errorf("navigation: %v, want %s among them", resources, want)
			}
		}
		screenshot(t, admin, "discovery")
	})
	t.Run("a broken schema file", func(t *testing.T) {
		run(t, admin, "the state page", chromedp.Navigate(s.URL+"/console/#/"), waitText("#specd-schemafiles", "shop.example.com/v1.yaml"))
		broken := "openapi: 3.0.3\ninfo: {title: x, version: v1}\nx-specd: {group: 7}\n"
		if err := os.WriteFile(filepath.Join(s.Schemas, "broken.yaml"), []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, admin, "the file's problem shown", waitText("#specd-schemafiles", "#/x-specd/group"), waitText("#specd-schemareloads", "Failed"),
			waitText("#specd-replicas", "Leader"), waitText("#specd-etcdmembers", "Healthy"))
		text := value(t, admin, "read the files", chromedp.Text(chromedp.ID("specd-schemafiles")))
		if !strings.Contains(text, "broken.yaml#/x-specd/group must be a string") {
			t.Errorf("schema files: %q, want broken.yaml's problem with its pointer", text)
		}
		screenshot(t, admin, "broken-file")
		if err := os.Remove(filepath.Join(s.Schemas, "broken.yaml")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("another client's write appears", func(t *testing.T) {
		run(t, admin, "the widgets", chromedp.Navigate(s.URL+"/console/#/r/shop.example.com/v1/widgets?ns=default"),
			waitText("#list-status", "Live"))
		s.mustDo(t, http.MethodPost, "/apis/shop.example.com/v1/namespaces/default/widgets", widget("from-elsewhere", "red"), http.StatusCreated)
		run(t, admin, "the new row", waitText("#objects", "from-elsewhere"))
		screenshot(t, admin, "live")
	})
	t.Run("create from YAML", func(t *testing.T) {
		yaml := "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: from-yaml\n  namespace: default\nspec:\n  color: blue\n  size: 4\n"
		run(t, admin, "create", chromedp.Click(chromedp.ID("create")), chromedp.WaitVisible(chromedp.ID("create-text")),
			chromedp.SetValue(chromedp.ID("create-text"), yaml), chromedp.Click(chromedp.ID("create-validate")),
			chromedp.WaitVisible(chromedp.ID("create-apply")), chromedp.Click(chromedp.ID("create-apply")),
			waitText("#yaml", "name: from-yaml"), waitText("#yaml", "size: 4"))
		screenshot(t, admin, "created")
		s.mustDo(t, http.MethodGet, "/apis/shop.example.com/v1/namespaces/default/widgets/from-yaml", "", http.StatusOK)
	})
	t.Run("one object in both versions", func(t *testing.T) {
		run(t, admin, "the widget in v1 and v2beta1", chromedp.Navigate(s.URL+"/console/#/o/shop.example.com/v1/widgets/default/from-yaml"),
			waitText("#versions", "apiVersion: shop.example.com/v1\n"), waitText("#versions", "apiVersion: shop.example.com/v2beta1"))
		text := value(t, admin, "read the versions", chromedp.Text(chromedp.ID("versions")))
		if strings.Count(text, "name: from-yaml") != 2 {
			t.Errorf("the versions shown: %q, want the widget in both", text)
		}
		screenshot(t, admin, "versions")
	})
	t.Run("a 422 at its field", func(t *testing.T) {
		yaml := "apiVersion: shop.example.com/v1\nkind: Widget\nmetadata:\n  name: bad\n  namespace: default\nspec:\n  color: purple\n"
		run(t, admin, "create an invalid widget", chromedp.Navigate(s.URL+"/console/#/new/shop.example.com/v1/widgets?ns=default"),
			chromedp.WaitVisible(chromedp.ID("create-text")), chromedp.SetValue(chromedp.ID("create-text"), yaml),
			chromedp.Click(chromedp.ID("create-validate")),
			chromedp.WaitVisible(chromedp.CSS(`#create-result li[data-field="spec.color"]`)))
		text := value(t, admin, "read the error", chromedp.Text(chromedp.ID("create-result")))
		if !strings.Contains(text, "422") || !strings.Contains(text, "purple") {
			t.Errorf("the error shown: %q, want the 422 naming purple", text)
		}
		screenshot(t, admin, "invalid")
		s.mustDo(t, http.MethodGet, "/apis/shop.example.com/v1/namespaces/default/widgets/bad", "", http.StatusNotFound)
	})
	t.Run("a viewer sees no edit or delete", func(t *testing.T) {
		viewer := newTab(t, browser)
		login(t, viewer, s, viewToken, "val")
		run(t, viewer, "the widgets as val", chromedp.Navigate(s.URL+"/console/#/r/shop.example.com/v1/widgets?ns=default"),
			waitText("#objects", "from-yaml"))
		if controls := value(t, viewer, "count the controls", chromedp.Evaluate[int](`document.querySelectorAll("#create, #objects button").length`)); controls != 0 {
			t.Errorf("val sees %d create or delete controls, want none", controls)
		}
		run(t, viewer, "a widget as val", chromedp.Navigate(s.URL+"/console/#/o/shop.example.com/v1/widgets/default/from-yaml"),
			waitText("#yaml", "from-yaml"))
		if value(t, viewer, "find the Edit button", chromedp.Evaluate[int](`document.querySelectorAll("#edit").length`)) != 0 {
			t.Error("val sees the Edit button")
		}
		screenshot(t, viewer, "viewer")
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
