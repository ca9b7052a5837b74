package reviews_test

import (
	"encoding/base64"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// kubectl runs the pinned kubectl ($KUBECTL, as make test sets it) with
// a kubeconfig holding token, and returns its output and exit code.
func kubectl(t *testing.T, srv *httptest.Server, token string, args ...string) (string, int) {
	t.Helper()
	bin := os.Getenv("KUBECTL")
	if bin == "" {
		t.Skip("KUBECTL is not set (make test sets it)")
	}
	cfg := filepath.Join(t.TempDir(), "kubeconfig")
	kc := "apiVersion: v1\nkind: Config\ncurrent-context: c\n" +
		"clusters: [{name: c, cluster: {server: " + srv.URL + ", certificate-authority-data: " +
		base64.StdEncoding.EncodeToString(caPEM(srv)) + "}}]\n" +
		"users: [{name: u, user: {token: " + token + "}}]\n" +
		"contexts: [{name: c, context: {cluster: c, user: u}}]\n"
	if err := os.WriteFile(cfg, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, append([]string{"--kubeconfig", cfg}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("kubectl %v: %v", args, err)
	}
	return strings.TrimSpace(string(out)), cmd.ProcessState.ExitCode()
}

func TestKubectlAuth(t *testing.T) {
	srv := startSpecd(t)
	tests := map[string]struct {
		token string
		args  []string
		code  int
		want  string // a line of the output, spaces collapsed
	}{
		"can-i yes":  {"bob-token", []string{"auth", "can-i", "list", "widgets", "-n", "default"}, 0, "yes"},
		"can-i no":   {"bob-token", []string{"auth", "can-i", "list", "widgets", "-n", "other"}, 1, "no"},
		"can-i --as": {"alice-token", []string{"auth", "can-i", "delete", "widgets", "-n", "default", "--as", "bob"}, 1, "no"},
		"can-i --list": {"bob-token", []string{"auth", "can-i", "--list", "-n", "default"}, 0,
			"widgets.shop.example.com [] [] [get list watch]"},
		"whoami": {"alice-token", []string{"auth", "whoami"}, 0, "Username alice"},
		"whoami --as": {"alice-token", []string{"auth", "whoami", "--as", "bob", "--as-group", "readers"}, 0,
			"Groups [readers system:authenticated]"},
		"forbidden": {"bob-token", []string{"get", "widgets", "-n", "other"}, 1,
			`Error from server (Forbidden): widgets.shop.example.com is forbidden: User "bob" cannot list resource "widgets" in API group "shop.example.com" in the namespace "other"`},
		// --raw: kubectl's discovery would report the refusal as "unknown",
		// as it does against kube-apiserver.
		"impersonation refused": {"bob-token", []string{"get", "--raw", "/apis/shop.example.com/v1/namespaces/default/widgets", "--as", "alice"}, 1,
			`Error from server (Forbidden): widgets.shop.example.com is forbidden: User "bob" cannot impersonate-on:user-info:list resource "widgets" in API group "shop.example.com" in the namespace "default"`},
		"unknown token": {"nobody", []string{"get", "widgets"}, 1,
			"error: You must be logged in to the server (the server has asked for the client to provide credentials)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, code := kubectl(t, srv, tc.token, tc.args...)
			if code != tc.code || !containsLine(out, tc.want) {
				t.Fatalf("exit %d, output:\n%s\nwant exit %d and the line %q", code, out, tc.code, tc.want)
			}
		})
	}
}

// containsLine reports whether out has line, runs of spaces counting as
// one: kubectl's columns are as wide as their longest cell.
func containsLine(out, line string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(l), " ") == line {
			return true
		}
	}
	return false
}
