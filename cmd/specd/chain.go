package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/specd-io/specd/server"
	"github.com/specd-io/specd/server/auditlog"
	"github.com/specd-io/specd/server/authn"
	"github.com/specd-io/specd/server/certs"
	"github.com/specd-io/specd/server/filters"
	"github.com/specd-io/specd/server/filters/fairness"
)

// chainFlags are the flags of the request chain: who a request is
// (authentication), what is audited, and how many requests run at once
// for how long; kube-apiserver's flags of the same names.
type chainFlags struct {
	Authn               authn.Flags
	Audit               auditlog.Flags
	MaxRequestsInFlight int
	MaxMutatingRequests int
	PriorityAndFairness bool
	RequestTimeout      time.Duration
	MinRequestTimeout   time.Duration
}

func (c *chainFlags) register(fs *flag.FlagSet) {
	c.Authn.Register(fs)
	c.Audit.Register(fs)
	fs.IntVar(&c.MaxRequestsInFlight, "max-requests-inflight", 400, "reads served at once, beyond which a request gets 429; 0 for no limit (watches do not count)")
	fs.IntVar(&c.MaxMutatingRequests, "max-mutating-requests-inflight", 200, "writes served at once, beyond which a request gets 429; 0 for no limit")
	fs.BoolVar(&c.PriorityAndFairness, "enable-priority-and-fairness", true, "share the sum of the two in-flight limits among users and priority levels, as kube-apiserver's API Priority and Fairness with its built-in configuration, instead of the two limits")
	fs.DurationVar(&c.RequestTimeout, "request-timeout", time.Minute, "longest a request other than a watch may take before it gets 504; 0 for no limit")
	c.MinRequestTimeout = 30 * time.Minute
	fs.Func("min-request-timeout", "seconds a watch without timeoutSeconds lasts at least; it ends at a random time between this and twice this (default 1800); with 0, as in kube-apiserver, such a watch ends at once", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("want a number of seconds, 0 or more, not %q", v)
		}
		c.MinRequestTimeout = time.Duration(n) * time.Second
		return nil
	})
}

// minRequestTimeout is server.Config's MinRequestTimeout, where 0 is the
// default and kube's 0 is server.NoMinRequestTimeout.
func (c chainFlags) minRequestTimeout() time.Duration {
	if c.MinRequestTimeout == 0 {
		return server.NoMinRequestTimeout
	}
	return c.MinRequestTimeout
}

func (c chainFlags) check() error {
	if c.PriorityAndFairness && c.MaxRequestsInFlight+c.MaxMutatingRequests <= 0 {
		return errors.New("--max-requests-inflight plus --max-mutating-requests-inflight must be positive with --enable-priority-and-fairness")
	}
	if err := c.Authn.Check(); err != nil {
		return err
	}
	return c.Audit.Check()
}

// requestChain is what the chain around specd's routes is built from,
// opened by serve: the authenticators (some of which fetch in the
// background) and the audit log.
type requestChain struct {
	flags         chainFlags
	authenticator authenticator.Request // nil with --insecure-serving
	auditPolicy   audit.PolicyRuleEvaluator
	auditBackend  audit.Backend
	fairness      *fairness.Controller // nil without priority and fairness
}

// openChain opens the authenticators and the audit log. serving is nil
// with --insecure-serving, where every request is system:unsecured.
func openChain(ctx context.Context, flags chainFlags, serving *certs.Serving, log *slog.Logger) (*requestChain, error) {
	c := &requestChain{flags: flags}
	if serving != nil {
		a, err := authn.New(ctx, flags.Authn.Config(serving.ClientCA()))
		if err != nil {
			return nil, err
		}
		c.authenticator = a
	}
	policy, backend, err := auditlog.New(flags.Audit)
	if err != nil {
		return nil, err
	}
	if backend != nil {
		if err := backend.Run(ctx.Done()); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		log.Info("audit log", "path", flags.Audit.LogPath, "policy", flags.Audit.PolicyFile)
	}
	c.auditPolicy, c.auditBackend = policy, backend
	if flags.PriorityAndFairness {
		// kube-apiserver gives priority and fairness both limits' seats.
		c.fairness = fairness.New(flags.MaxRequestsInFlight + flags.MaxMutatingRequests)
		if err := c.fairness.Run(ctx); err != nil {
			return nil, err
		}
	} else {
		filters.RecordInFlight(ctx)
	}
	return c, nil
}

// close flushes and closes the audit log.
func (c *requestChain) close() {
	if c.auditBackend != nil {
		c.auditBackend.Shutdown()
	}
}

// wrap puts h behind the chain: authentication, impersonation, audit,
// the in-flight limits and timeout, then authorization by authz.
func (c *requestChain) wrap(h http.Handler, authz authorizer.Authorizer) http.Handler {
	return filters.Wrap(h, filters.Config{
		Authenticator:               c.authenticator,
		Authorizer:                  authz,
		AuditPolicy:                 c.auditPolicy,
		AuditBackend:                c.auditBackend,
		Insecure:                    c.authenticator == nil,
		MaxRequestsInFlight:         c.flags.MaxRequestsInFlight,
		MaxMutatingRequestsInFlight: c.flags.MaxMutatingRequests,
		Fairness:                    c.fairness,
		RequestTimeout:              c.flags.RequestTimeout,
	})
}
