package authn

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/anonymous"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/apiserver/pkg/authentication/request/x509"
	tokencache "k8s.io/apiserver/pkg/authentication/token/cache"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	tokenunion "k8s.io/apiserver/pkg/authentication/token/union"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// tokenSuccessTTL is kube-apiserver's default: a token seen valid is not
// verified again for this long, which keeps signature checks of OIDC
// tokens off the per-request path.
const tokenSuccessTTL = 10 * time.Second

// Config says which authenticators New builds; the zero value accepts no
// one.
type Config struct {
	// ClientCA verifies client certificates; nil turns them off. Its
	// content may change (a reloaded --client-ca-file): each request
	// reads the current one.
	ClientCA      dynamiccertificates.CAContentProvider
	TokenAuthFile string
	OIDC          OIDC
	Anonymous     bool
	// Tokens are more bearer token authenticators, asked after the token
	// file and OIDC (the console's login link).
	Tokens []authenticator.Token
}

// OIDC holds the --oidc-* flag values; no IssuerURL means no OIDC.
type OIDC struct {
	IssuerURL      string
	ClientID       string
	UsernameClaim  string
	UsernamePrefix string
	GroupsClaim    string
	GroupsPrefix   string
	CAFile         string
	SigningAlgs    []string
}

// Authenticator is the request authenticator specd's chain runs.
type Authenticator struct {
	request authenticator.Request
	health  []func() error
}

var _ authenticator.Request = (*Authenticator)(nil)

// AuthenticateRequest implements authenticator.Request.
func (a *Authenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	return a.request.AuthenticateRequest(req)
}

// HealthCheck reports an authenticator that cannot accept anyone yet: an
// OIDC issuer whose discovery document and keys were not fetched.
func (a *Authenticator) HealthCheck() error {
	for _, h := range a.health {
		if err := h(); err != nil {
			return err
		}
	}
	return nil
}

// New builds the authenticators of cfg in kube-apiserver's order: client
// certificate, then bearer token (token file, then OIDC); the first that
// accepts names the user, who joins system:authenticated. ctx bounds the
// background work of OIDC (discovery and key fetches): cancel it only
// when the authenticator is no longer used.
func New(ctx context.Context, cfg Config) (*Authenticator, error) {
	if err := cfg.OIDC.check(); err != nil {
		return nil, err
	}
	a := &Authenticator{}
	var reqs []authenticator.Request
	if cfg.ClientCA != nil {
		certs := x509.NewDynamic(cfg.ClientCA.VerifyOptions, x509.CommonNameUserConversion)
		reqs = append(reqs, newCertCache(certs, cfg.ClientCA.CurrentCABundleContent, wallClock{}))
	}
	tokens, err := a.tokenAuthenticators(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if len(tokens) > 0 {
		cached := tokencache.New(tokenunion.New(tokens...), true, tokenSuccessTTL, 0)
		reqs = append(reqs, bearertoken.New(cached))
	}
	a.request = group.NewAuthenticatedGroupAdder(union.New(reqs...))
	if cfg.Anonymous {
		// A credential that fails is refused, not taken for no credential.
		a.request = union.NewFailOnError(a.request, anonymous.NewAuthenticator(nil))
	}
	return a, nil
}

func (a *Authenticator) tokenAuthenticators(ctx context.Context, cfg Config) ([]authenticator.Token, error) {
	var tokens []authenticator.Token
	if cfg.TokenAuthFile != "" {
		t, err := tokenfile.NewCSV(cfg.TokenAuthFile)
		if err != nil {
			return nil, fmt.Errorf("--token-auth-file %s: %w", cfg.TokenAuthFile, err)
		}
		tokens = append(tokens, t)
	}
	if cfg.OIDC.IssuerURL != "" {
		t, err := newOIDC(ctx, cfg.OIDC)
		if err != nil {
			return nil, err
		}
		tokens = append(tokens, t)
		a.health = append(a.health, t.HealthCheck)
	}
	return append(tokens, cfg.Tokens...), nil
}
