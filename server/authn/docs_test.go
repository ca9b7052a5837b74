package authn_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/specd-io/specd/server/authn"
	"k8s.io/client-go/tools/clientcmd"
)

var docBlock = regexp.MustCompile("(?s)```(csv|yaml)\n(.*?)```")

// authnDoc is the Authentication section of docs/security.md.
func authnDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "\n## Authentication\n")
	if i < 0 {
		t.Fatal("docs/security.md has no section ## Authentication")
	}
	doc = doc[i+len("\n## Authentication\n"):]
	if j := strings.Index(doc, "\n## "); j >= 0 {
		doc = doc[:j]
	}
	return doc
}

// TestDocsAuthn checks the guide's examples: the token file is read by
// specd and names its users, and each kubeconfig loads as kubectl reads it,
// the token one with a token of the file.
func TestDocsAuthn(t *testing.T) {
	var csv string
	var kubeconfigs []string
	for _, m := range docBlock.FindAllStringSubmatch(authnDoc(t), -1) {
		if m[1] == "csv" {
			csv = m[2]
		} else {
			kubeconfigs = append(kubeconfigs, m[2])
		}
	}
	a := newAuthenticator(t, authn.Config{TokenAuthFile: writeFile(t, "tokens.csv", csv)})
	if len(kubeconfigs) != 3 {
		t.Fatalf("%d kubeconfigs, want one per method", len(kubeconfigs))
	}
	for _, kc := range kubeconfigs {
		cfg, err := clientcmd.Load([]byte(kc))
		if err != nil {
			t.Fatalf("kubeconfig does not load: %v\n%s", err, kc)
		}
		for name, user := range cfg.AuthInfos {
			if user.Token == "" {
				continue
			}
			resp, ok, err := a.AuthenticateRequest(bearer(user.Token))
			if !ok || err != nil || resp.User.GetName() != name {
				t.Errorf("kubeconfig user %q: token of the doc's file names %v (ok=%v, err=%v)", name, resp, ok, err)
			}
		}
	}
}
