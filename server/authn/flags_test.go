package authn_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/specd-io/specd/server/authn"
	"github.com/spf13/pflag"
)

func parse(t *testing.T, args ...string) *authn.Flags {
	t.Helper()
	var f authn.Flags
	fs := pflag.NewFlagSet("specd serve", pflag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &f
}

func TestFlagsDefaults(t *testing.T) {
	want := authn.Config{OIDC: authn.OIDC{UsernameClaim: "sub", SigningAlgs: []string{"RS256"}}}
	if diff := cmp.Diff(want, parse(t).Config(nil)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

func TestFlagsConfig(t *testing.T) {
	f := parse(t, "--token-auth-file=t.csv", "--anonymous-auth", "--oidc-issuer-url=https://issuer.example",
		"--oidc-client-id=specd", "--oidc-username-claim=email", "--oidc-username-prefix=oidc:",
		"--oidc-groups-claim=groups", "--oidc-groups-prefix=g:", "--oidc-ca-file=ca.pem", "--oidc-signing-algs=RS256, ES256")
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	got := f.Config(nil)
	want := authn.OIDC{IssuerURL: "https://issuer.example", ClientID: "specd", UsernameClaim: "email",
		UsernamePrefix: "oidc:", GroupsClaim: "groups", GroupsPrefix: "g:", CAFile: "ca.pem", SigningAlgs: []string{"RS256", "ES256"}}
	if !got.Anonymous || got.TokenAuthFile != "t.csv" {
		t.Fatalf("got %+v", got)
	}
	if diff := cmp.Diff(want, got.OIDC); diff != "" {
		t.Fatalf("OIDC (-want +got):\n%s", diff)
	}
}

func TestFlagsCheck(t *testing.T) {
	tests := map[string]struct {
		args []string
		want []string
	}{
		"client id alone":      {[]string{"--oidc-client-id=specd"}, []string{"--oidc-client-id needs --oidc-issuer-url"}},
		"prefixes alone":       {[]string{"--oidc-username-prefix=u:", "--oidc-groups-prefix=g:"}, []string{"--oidc-username-prefix needs", "--oidc-groups-prefix needs"}},
		"issuer alone":         {[]string{"--oidc-issuer-url=https://i.example"}, []string{"--oidc-issuer-url needs --oidc-client-id"}},
		"http issuer":          {[]string{"--oidc-issuer-url=http://i.example", "--oidc-client-id=c"}, []string{"must be an https:// URL"}},
		"issuer with query":    {[]string{"--oidc-issuer-url=https://i.example?x=1", "--oidc-client-id=c"}, []string{"no query"}},
		"unknown algorithm":    {[]string{"--oidc-issuer-url=https://i.example", "--oidc-client-id=c", "--oidc-signing-algs=RS256,HS256"}, []string{`--oidc-signing-algs: "HS256" is not one of`}},
		"empty username claim": {[]string{"--oidc-issuer-url=https://i.example", "--oidc-client-id=c", "--oidc-username-claim="}, []string{"--oidc-username-claim must not be empty"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := parse(t, tc.args...).Check()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q, want %q in it", err, w)
				}
			}
		})
	}
}

func TestNewChecksOIDC(t *testing.T) {
	_, err := authn.New(t.Context(), authn.Config{OIDC: authn.OIDC{IssuerURL: "https://i.example", UsernameClaim: "sub"}})
	if err == nil || !strings.Contains(err.Error(), "--oidc-client-id") {
		t.Fatalf("error %v, want one naming --oidc-client-id", err)
	}
}
