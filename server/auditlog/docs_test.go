package auditlog

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// docPolicy is the policy file of docs/security.md: the first yaml
// block of its Audit section.
func docPolicy(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, audit, ok := bytes.Cut(doc, []byte("\n## Audit\n"))
	if !ok {
		t.Fatal("docs/security.md has no section ## Audit")
	}
	if end := bytes.Index(audit, []byte("\n## ")); end >= 0 {
		audit = audit[:end]
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(audit)
	if m == nil {
		t.Fatal("the Audit section of docs/security.md has no yaml block")
	}
	return string(m[1])
}

// TestDocPolicy checks that the doc's policy loads and does what its
// comments say.
func TestDocPolicy(t *testing.T) {
	_, ev, _ := newAudit(t, docPolicy(t))
	plugin := &user.DefaultInfo{Name: "system:plugin:fleet-controller"}
	res := func(u user.Info, verb, group, resource string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, Resource: resource, ResourceRequest: true}
	}
	tests := map[string]struct {
		attrs authorizer.AttributesRecord
		level string
	}{
		"probe":             {authorizer.AttributesRecord{User: alice, Verb: "get", Path: "/readyz"}, "None"},
		"discovery":         {authorizer.AttributesRecord{User: alice, Verb: "get", Path: "/apis/fleet.example.com/v1"}, "None"},
		"plugin watch":      {res(plugin, "watch", "fleet.example.com", "ships"), "None"},
		"plugin write":      {res(plugin, "update", "fleet.example.com", "ships"), "Request"},
		"rbac read":         {res(alice, "list", "rbac.authorization.k8s.io", "rolebindings"), "RequestResponse"},
		"rbac write":        {res(alice, "create", "rbac.authorization.k8s.io", "clusterroles"), "RequestResponse"},
		"ship read":         {res(alice, "get", "fleet.example.com", "ships"), "Metadata"},
		"ship create":       {res(alice, "create", "fleet.example.com", "ships"), "Request"},
		"other group write": {res(alice, "delete", "shop.example.com", "orders"), "Metadata"},
		"metrics (no rule)": {authorizer.AttributesRecord{User: alice, Verb: "get", Path: "/metrics"}, "Metadata"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ev.EvaluatePolicyRule(&tc.attrs).Level; string(got) != tc.level {
				t.Errorf("level %s, want %s", got, tc.level)
			}
		})
	}
}

// TestDocPolicyOmitsRequestReceived checks the doc's omitStages.
func TestDocPolicyOmitsRequestReceived(t *testing.T) {
	f, ev, b := newAudit(t, docPolicy(t))
	serve(t, chain(http.HandlerFunc(create), ev, b, alice), "POST", "/apis/fleet.example.com/v1/namespaces/ns1/ships", widget)
	evs := events(t, f.LogPath)
	if len(evs) != 1 || evs[0].Stage != "ResponseComplete" || evs[0].RequestObject == nil || evs[0].ResponseObject != nil {
		t.Fatalf("stages %v: want one ResponseComplete with the request body only", stages(evs))
	}
}
