package console

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/specd-io/specd/internal/testpki"
)

// TestConsole drives the console in headless Chromium against a real
// specd: token login, the discovery tree, specd's state with a broken
// schema file, the leading replica and the etcd member, a list that follows another client's write, create from
// YAML, one object in both versions of its kind, a 422 shown at its field, and a viewer who sees no edit or
// delete.
func TestConsole(t *testing.T) {
	issuer, oidc := oidcArgs(t, testpki.NewIssuer(t))
	s := startSpecd(t, oidc...)
	s.mustDo(t, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", viewBinding, http.StatusCreated)
	browser := newBrowser(t)
	adminNet := newNetLog()
	admin := newTab(t, browser, adminNet.listen)

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
	t.Run("a reload the gate refuses", func(t *testing.T) {
		file := filepath.Join(s.Schemas, "shop.example.com", "v1.yaml")
		before, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// A new required field breaks every client that writes widgets.
		breaking := strings.Replace(string(before), "required: [color]", "required: [color, price]", 1)
		if breaking == string(before) {
			t.Fatal("the widget schema has no required: [color] to change")
		}
		run(t, admin, "the state page", chromedp.Navigate(s.URL+"/console/#/"), waitText("#specd-schemareloads", "Applied"))
		if err := os.WriteFile(file, []byte(breaking), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := os.WriteFile(file, before, 0o644); err != nil {
				t.Error(err)
			}
		})
		run(t, admin, "the refusal shown", waitText("#specd-schemareloads", "Refused"), waitText("#specd-schemareloads", "allowBreaking"))
		text := value(t, admin, "read the reloads", chromedp.Text(chromedp.ID("specd-schemareloads")))
		if !strings.Contains(text, "price") {
			t.Errorf("reloads: %q, want the refused change naming price", text)
		}
		screenshot(t, admin, "refused-reload")
	})
	t.Run("another client's write appears", func(t *testing.T) {
		liveList(t, s, admin, adminNet)
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
	t.Run("an object's events", func(t *testing.T) {
		var w struct {
			Metadata struct{ UID string } `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(s.mustDo(t, http.MethodGet, "/apis/shop.example.com/v1/namespaces/default/widgets/from-yaml", "", http.StatusOK)), &w); err != nil {
			t.Fatal(err)
		}
		s.mustDo(t, http.MethodPost, "/api/v1/namespaces/default/events", event("from-yaml.1", "from-yaml", w.Metadata.UID, "Polished"), http.StatusCreated)
		s.mustDo(t, http.MethodPost, "/api/v1/namespaces/default/events", event("other.1", "from-elsewhere", "", "NotMine"), http.StatusCreated)
		run(t, admin, "the widget's events", chromedp.Navigate(s.URL+"/console/#/o/shop.example.com/v1/widgets/default/from-yaml"),
			waitText("#events", "Polished"))
		if text := value(t, admin, "read the events", chromedp.Text(chromedp.ID("events"))); strings.Contains(text, "NotMine") {
			t.Errorf("the widget's events show another object's: %q", text)
		}
		s.mustDo(t, http.MethodPost, "/api/v1/namespaces/default/events", event("from-yaml.2", "from-yaml", w.Metadata.UID, "Shipped"), http.StatusCreated)
		run(t, admin, "a new event shown by watch", waitText("#events", "Shipped"))
		screenshot(t, admin, "events")
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
		run(t, viewer, "who val is, what val may do", chromedp.Navigate(s.URL+"/console/#/me?ns=default"),
			waitText("#me", "val"), waitText("#rules", "widgets"))
		rules := value(t, viewer, "read the rules", chromedp.Evaluate[[][]string](
			`[...document.querySelectorAll("#rules tbody tr")].map(tr => [...tr.cells].map(td => td.textContent))`))
		for _, r := range rules {
			if strings.Contains(r[0], "create") || strings.Contains(r[0], "delete") || strings.Contains(r[0], "*") {
				if strings.Contains(r[2], "widgets") {
					t.Errorf("val's rules %v let val change widgets", r)
				}
			}
		}
		screenshot(t, viewer, "whoami")
	})
	t.Run("the login link, once", func(t *testing.T) {
		link := s.loginLink(t)
		first := newTab(t, browser)
		run(t, first, "open the link", chromedp.Navigate(link), waitText("#whoami", "specd-admin"), waitText("#whoami", "system:masters"))
		if url := value(t, first, "read the address", chromedp.Location()); strings.Contains(url, "login=") {
			t.Errorf("the code stays in the address: %s", url)
		}
		screenshot(t, first, "login-link")
		second := newTab(t, browser)
		run(t, second, "open the link again", chromedp.Navigate(link), waitText("#login-error", "wrong, used or expired"))
		if visible := value(t, second, "is the console shown", chromedp.Evaluate[bool](appShown)); visible {
			t.Error("the used link logged in again")
		}
		screenshot(t, second, "login-link-used")
	})
	t.Run("accessibility of each page", func(t *testing.T) {
		axe := axeSource(t)
		tab := newTab(t, browser)
		run(t, tab, "the login page", chromedp.Navigate(s.URL+"/console/"), chromedp.WaitVisible(chromedp.ID("token")))
		checkAccessibility(t, tab, axe, "login")
		login(t, tab, s, adminToken, "alice")
		pages := []struct{ name, fragment, sel, text string }{
			{"state", "#/", "#specd-schemafiles", "shop.example.com"},
			{"list", "#/r/shop.example.com/v1/widgets?ns=default", "#objects", "from-yaml"},
			{"object", "#/o/shop.example.com/v1/widgets/default/from-yaml", "#versions", "v2beta1"},
			{"create", "#/new/shop.example.com/v1/widgets?ns=default", "#view h2", "New Widget"},
			{"who am I", "#/me?ns=default", "#rules", "*"},
		}
		for _, p := range pages {
			run(t, tab, p.name, chromedp.Navigate(s.URL+"/console/"+p.fragment), waitText(p.sel, p.text))
			checkAccessibility(t, tab, axe, p.name)
		}
	})
	t.Run("OIDC login", func(t *testing.T) {
		tab := newTab(t, browser)
		oidcLogin(t, tab, s, issuer.URL, "#/r/shop.example.com/v1/widgets?ns=default")
		screenshot(t, tab, "oidc")
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
