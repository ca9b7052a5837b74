package authn

import (
	"context"
	"fmt"
	"os"

	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/apiserver/plugin/pkg/authenticator/token/oidc"
)

// newOIDC starts the OIDC authenticator; it fetches the issuer's discovery
// document and keys in the background, under ctx.
func newOIDC(ctx context.Context, o OIDC) (oidc.AuthenticatorTokenWithHealthCheck, error) {
	opts := oidc.Options{JWTAuthenticator: jwtAuthenticator(o), SupportedSigningAlgs: o.SigningAlgs}
	if o.CAFile != "" {
		ca, err := caContent(o.CAFile)
		if err != nil {
			return nil, err
		}
		opts.CAContentProvider = ca
	}
	t, err := oidc.New(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("--oidc-issuer-url %s: %w", o.IssuerURL, err)
	}
	return t, nil
}

func caContent(path string) (dynamiccertificates.CAContentProvider, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--oidc-ca-file: %w", err)
	}
	ca, err := dynamiccertificates.NewStaticCAContent("oidc-ca", pem)
	if err != nil {
		return nil, fmt.Errorf("--oidc-ca-file %s: %w", path, err)
	}
	return ca, nil
}

// jwtAuthenticator maps the --oidc-* flags onto the structured
// configuration as kube-apiserver does, keeping its legacy username rule:
// with no prefix given, a claim other than email is prefixed with the
// issuer URL and '#' so that it cannot pass for another authenticator's
// user; the prefix "-" means none.
func jwtAuthenticator(o OIDC) apiserver.JWTAuthenticator {
	prefix := o.UsernamePrefix
	switch {
	case prefix == "-":
		prefix = ""
	case prefix == "" && o.UsernameClaim != "email":
		prefix = o.IssuerURL + "#"
	}
	j := apiserver.JWTAuthenticator{
		Issuer: apiserver.Issuer{URL: o.IssuerURL, Audiences: []string{o.ClientID}},
		ClaimMappings: apiserver.ClaimMappings{
			Username: apiserver.PrefixedClaimOrExpression{Claim: o.UsernameClaim, Prefix: &prefix},
		},
	}
	if o.GroupsClaim != "" {
		groupsPrefix := o.GroupsPrefix
		j.ClaimMappings.Groups = apiserver.PrefixedClaimOrExpression{Claim: o.GroupsClaim, Prefix: &groupsPrefix}
	}
	return j
}
