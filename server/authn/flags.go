package authn

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/apiserver/plugin/pkg/authenticator/token/oidc"
)

// Flags are the authentication flags of `specd serve`, named and defaulted
// as kube-apiserver's. --client-ca-file is not here: the TLS setup owns that
// file and hands its live content to Config.
type Flags struct {
	TokenAuthFile string
	OIDC          OIDC
	SigningAlgs   string
	Anonymous     bool
}

// Register adds the flags to fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.TokenAuthFile, "token-auth-file", "", "CSV file of bearer tokens: token,user,uid[,\"group1,group2\"] per line (kube's format)")
	fs.BoolVar(&f.Anonymous, "anonymous-auth", false, "serve requests with no credentials as user system:anonymous in group system:unauthenticated")
	f.registerOIDC(fs)
}

func (f *Flags) registerOIDC(fs *pflag.FlagSet) {
	o := &f.OIDC
	fs.StringVar(&o.IssuerURL, "oidc-issuer-url", "", "https URL of the OpenID issuer; its id tokens are accepted (needs --oidc-client-id)")
	fs.StringVar(&o.ClientID, "oidc-client-id", "", "client id that id tokens must be issued for (their aud claim)")
	fs.StringVar(&o.UsernameClaim, "oidc-username-claim", "sub", "id token claim that names the user")
	fs.StringVar(&o.UsernamePrefix, "oidc-username-prefix", "", "prefix of OIDC user names; unset prefixes claims other than email with the issuer URL and '#', '-' means none")
	fs.StringVar(&o.GroupsClaim, "oidc-groups-claim", "", "id token claim (a string or a list of strings) that names the user's groups")
	fs.StringVar(&o.GroupsPrefix, "oidc-groups-prefix", "", "prefix of OIDC group names")
	fs.StringVar(&o.CAFile, "oidc-ca-file", "", "PEM file of the CAs that sign the issuer's serving certificate (the system's by default)")
	fs.StringVar(&f.SigningAlgs, "oidc-signing-algs", "RS256", "comma-separated JOSE algorithms accepted for id token signatures")
}

// Config returns the configuration New takes; clientCA may be nil when no
// --client-ca-file is given, which turns client certificates off.
func (f *Flags) Config(clientCA dynamiccertificates.CAContentProvider) Config {
	o := f.OIDC
	o.SigningAlgs = splitList(f.SigningAlgs)
	return Config{ClientCA: clientCA, TokenAuthFile: f.TokenAuthFile, OIDC: o, Anonymous: f.Anonymous}
}

// Check reports every flag combination New would refuse or silently ignore.
func (f *Flags) Check() error {
	return f.Config(nil).OIDC.check()
}

func (o OIDC) check() error {
	if o.IssuerURL == "" {
		return needIssuer(o)
	}
	var errs []error
	if o.ClientID == "" {
		errs = append(errs, errors.New("--oidc-issuer-url needs --oidc-client-id"))
	}
	if err := checkIssuerURL(o.IssuerURL); err != nil {
		errs = append(errs, err)
	}
	if o.UsernameClaim == "" {
		errs = append(errs, errors.New("--oidc-username-claim must not be empty"))
	}
	for _, alg := range o.SigningAlgs {
		if !slices.Contains(oidc.AllValidSigningAlgorithms(), alg) {
			errs = append(errs, fmt.Errorf("--oidc-signing-algs: %q is not one of %s", alg, strings.Join(oidc.AllValidSigningAlgorithms(), ", ")))
		}
	}
	return errors.Join(errs...)
}

// needIssuer names the OIDC flags given without an issuer, which would
// otherwise be ignored without a word.
func needIssuer(o OIDC) error {
	var errs []error
	for _, f := range []struct{ name, value string }{
		{"--oidc-client-id", o.ClientID}, {"--oidc-username-prefix", o.UsernamePrefix},
		{"--oidc-groups-claim", o.GroupsClaim}, {"--oidc-groups-prefix", o.GroupsPrefix},
		{"--oidc-ca-file", o.CAFile},
	} {
		if f.value != "" {
			errs = append(errs, fmt.Errorf("%s needs --oidc-issuer-url", f.name))
		}
	}
	return errors.Join(errs...)
}

func checkIssuerURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("--oidc-issuer-url: %w", err)
	case u.Scheme != "https" || u.Host == "":
		return fmt.Errorf("--oidc-issuer-url %q: must be an https:// URL", raw)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return fmt.Errorf("--oidc-issuer-url %q: must have no query, fragment or user", raw)
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
