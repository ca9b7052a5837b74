package chain

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/specd-io/specd/server/auditlog"
	"github.com/specd-io/specd/server/authn"
	"github.com/specd-io/specd/server/certs"
	"github.com/specd-io/specd/server/delegated"
	"github.com/specd-io/specd/server/filters"
	"github.com/specd-io/specd/server/filters/fairness"
)

// Config is what Open opens a chain from.
type Config struct {
	Flags Flags
	// Serving is nil with --insecure-serving, where every request is
	// system:unsecured.
	Serving *certs.Serving
	// Delegation is the host cluster's when specd serves aggregated, else
	// nil: specd's own users come first, then the host's.
	Delegation *delegated.Delegation
	Logger     *slog.Logger
}

// Chain is what the chain around specd's routes is built from.
type Chain struct {
	flags         Flags
	authenticator authenticator.Request // nil with --insecure-serving
	auditPolicy   audit.PolicyRuleEvaluator
	auditBackend  audit.Backend
	fairness      *fairness.Controller // nil without priority and fairness
	delegation    *delegated.Delegation
	loginLink     *authn.LoginLink // nil unless specd generated its admin certificate
}

// Open opens the authenticators, the audit log and priority and
// fairness; they run until ctx ends, and Close flushes the audit log.
func Open(ctx context.Context, cfg Config) (*Chain, error) {
	c := &Chain{flags: cfg.Flags, delegation: cfg.Delegation}
	if cfg.Serving != nil {
		a, err := c.openAuthenticator(ctx, cfg.Serving)
		if err != nil {
			return nil, err
		}
		c.authenticator = a
	}
	if err := c.openAudit(ctx, cfg.Logger); err != nil {
		return nil, err
	}
	if cfg.Flags.PriorityAndFairness {
		// kube-apiserver gives priority and fairness both limits' seats.
		c.fairness = fairness.New(cfg.Flags.MaxRequestsInFlight + cfg.Flags.MaxMutatingRequests)
		if err := c.fairness.Run(ctx); err != nil {
			return nil, err
		}
	} else {
		filters.RecordInFlight(ctx)
	}
	return c, nil
}

// openAuthenticator is specd's authenticator, or, aggregated, specd's
// users (without anonymous, which is the host's to decide) then the
// host's.
func (c *Chain) openAuthenticator(ctx context.Context, serving *certs.Serving) (authenticator.Request, error) {
	cfg := c.flags.Authn.Config(serving.ClientCA())
	if serving.Generated() {
		// The link is for whoever started specd, as the generated admin
		// certificate is: specd logs it, and it logs in as that user.
		c.loginLink = authn.NewLoginLink(time.Now, certs.AdminUser, certs.AdminGroup)
		cfg.Tokens = append(cfg.Tokens, c.loginLink)
	}
	anonymous := cfg.Anonymous
	if c.delegation != nil {
		cfg.Anonymous = false
	}
	local, err := authn.New(ctx, cfg)
	if err != nil || c.delegation == nil {
		return local, err
	}
	return c.delegation.Authenticator(local, anonymous), nil
}

func (c *Chain) openAudit(ctx context.Context, log *slog.Logger) error {
	policy, backend, err := auditlog.New(c.flags.Audit)
	if err != nil {
		return err
	}
	if backend != nil {
		if err := backend.Run(ctx.Done()); err != nil {
			return fmt.Errorf("audit log: %w", err)
		}
		log.Info("audit log", "path", c.flags.Audit.LogPath, "policy", c.flags.Audit.PolicyFile)
	}
	c.auditPolicy, c.auditBackend = policy, backend
	return nil
}

// LoginLink is the console's login link (server/authn), nil unless
// specd generated its own certificates.
func (c *Chain) LoginLink() *authn.LoginLink { return c.loginLink }

// Close flushes and closes the audit log.
func (c *Chain) Close() {
	if c.auditBackend != nil {
		c.auditBackend.Shutdown()
	}
}

// Decider is who decides the requests of the chain: local, specd's
// authorizer, or, aggregated, local for specd's own users and the host
// for the others.
func (c *Chain) Decider(local authorizer.Authorizer) authorizer.UnconditionalAuthorizer {
	if c.delegation == nil {
		return local
	}
	return c.delegation.Authorizer(local)
}

// Wrap puts h behind the chain: authentication, impersonation, audit,
// the in-flight limits and timeout, then authorization by authz.
func (c *Chain) Wrap(h http.Handler, authz authorizer.UnconditionalAuthorizer) http.Handler {
	var requestHeader *authenticatorfactory.RequestHeaderConfig
	if c.delegation != nil {
		requestHeader = c.delegation.RequestHeaderConfig()
	}
	return filters.Wrap(h, filters.Config{
		Authenticator:               c.authenticator,
		Authorizer:                  authz,
		RequestHeader:               requestHeader,
		AuditPolicy:                 c.auditPolicy,
		AuditBackend:                c.auditBackend,
		Insecure:                    c.authenticator == nil,
		MaxRequestsInFlight:         c.flags.MaxRequestsInFlight,
		MaxMutatingRequestsInFlight: c.flags.MaxMutatingRequests,
		Fairness:                    c.fairness,
		RequestTimeout:              c.flags.RequestTimeout,
	})
}
