package auditlog

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"
)

func TestRotation(t *testing.T) {
	f, ev, b := newAudit(t, policyWith("Request"))
	b.Shutdown()
	f.MaxSize, f.MaxBackups = 1, 0
	ev, b, err := New(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Shutdown)
	big := fmt.Sprintf(`{"metadata":{"name":"w1"},"spec":{"blob":%q}}`, strings.Repeat("x", 300<<10))
	h := chain(http.HandlerFunc(create), ev, b, alice)
	for range 8 {
		serve(t, h, "POST", "/apis/example.com/v1/namespaces/ns1/widgets", big)
	}
	files, err := filepath.Glob(filepath.Join(filepath.Dir(f.LogPath), "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("files %v: want the log and at least one backup", files)
	}
	for _, p := range files {
		if fi, err := os.Stat(p); err != nil || fi.Size() > 1<<20 {
			t.Errorf("%s: %v, size %d: want at most 1 MiB", p, err, fi.Size())
		}
		events(t, p)
	}
}

func TestLogFileIsPrivate(t *testing.T) {
	f, _, _ := newAudit(t, policyWith("Metadata"))
	for p, want := range map[string]os.FileMode{f.LogPath: 0o600, filepath.Dir(f.LogPath): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v, mode %v; want %v", p, err, fi.Mode(), want)
		}
	}
}

func TestLegacyFormat(t *testing.T) {
	f, _, b := newAudit(t, policyWith("Metadata"))
	b.Shutdown()
	f.Format = "legacy"
	ev, b, err := New(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Shutdown)
	serve(t, chain(http.HandlerFunc(create), ev, b, alice), "POST", "/apis/example.com/v1/namespaces/ns1/widgets", widget)
	data, err := os.ReadFile(f.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `stage="ResponseComplete"`) || !strings.Contains(lines[1], `user="alice"`) ||
		!strings.Contains(lines[1], `method="create"`) || !strings.Contains(lines[1], `response="201"`) {
		t.Errorf("log:\n%s\nwant two legacy lines, the last of alice's create answered 201", data)
	}
}

func TestFailedAuthentication(t *testing.T) {
	f, ev, b := newAudit(t, policyWith("Metadata"))
	none := authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) { return nil, false, nil })
	failed := filters.WithFailedAuthenticationAudit(filters.Unauthorized(statusCodecs()), b, ev)
	h := filters.WithAudit(http.HandlerFunc(create), b, ev, nil)
	h = filters.WithAuthentication(h, none, failed, nil, nil)
	h = filters.WithRequestInfo(h, &request.RequestInfoFactory{APIPrefixes: sets.NewString("apis")})
	h = filters.WithAuditInit(h)
	if w := serve(t, h, "GET", "/apis/example.com/v1/widgets", ""); w.StatusCode != http.StatusUnauthorized {
		t.Fatalf("code %d", w.StatusCode)
	}
	evs := events(t, f.LogPath)
	if len(evs) != 1 {
		t.Fatalf("stages %v, want one", stages(evs))
	}
	e := evs[0]
	if e.Stage != "ResponseStarted" || e.Verb != "list" || e.User.Username != "" {
		t.Errorf("stage %q verb %q user %+v", e.Stage, e.Verb, e.User)
	}
	if s := e.ResponseStatus; s == nil || s.Code != 401 || s.Reason != "Unauthorized" {
		t.Errorf("responseStatus %+v", s)
	}
}
