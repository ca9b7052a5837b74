package filters

import (
	"net/http"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	endpointsfilters "k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/filters/impersonation"
	"k8s.io/apiserver/pkg/endpoints/request"
	serverfilters "k8s.io/apiserver/pkg/server/filters"

	"github.com/specd-io/specd/server/filters/fairness"
)

// Config is what the chain needs; cmd/specd fills it from its flags.
type Config struct {
	// Authenticator tells who sent a request; the first of a union that
	// accepts wins. Required unless Insecure.
	Authenticator authenticator.Request
	// Authorizer decides every request and every impersonation. Any
	// authorizer.Authorizer fits. Nil allows everything, as
	// --authorization-mode=AlwaysAllow.
	Authorizer authorizer.UnconditionalAuthorizer
	// AuditPolicy and AuditBackend turn on audit; both nil: no audit.
	AuditPolicy  audit.PolicyRuleEvaluator
	AuditBackend audit.Backend
	// Insecure is --insecure-serving: every request is the user
	// system:unsecured in system:masters, as kube's old insecure port,
	// whatever credentials it carries.
	Insecure bool
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight bound the
	// requests served at once (429 beyond); watches do not count.
	// 0 is no bound; kube-apiserver's defaults are 400 and 200.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// Fairness, when set, is API Priority and Fairness
	// (--enable-priority-and-fairness): it takes the place of the
	// in-flight bounds, as in kube-apiserver, and must be running.
	Fairness *fairness.Controller
	// RequestHeader, when set, are a front proxy's header names (a host
	// cluster's, when specd serves aggregated): they are dropped from
	// every request authenticated, as kube's X-Remote-* always are.
	RequestHeader *authenticatorfactory.RequestHeaderConfig
	// RequestTimeout ends a request that is not a watch with a 504 Status
	// after this long, or sooner as its ?timeout= asks. 0 is no timeout;
	// kube-apiserver's default is 60s.
	RequestTimeout time.Duration
}

// Wrap returns h behind the request chain, in kube-apiserver's order.
// Each filter below wraps the ones above it: a request meets them from the
// bottom up (audit ID, panic recovery, request info, ... authorization).
func Wrap(h http.Handler, cfg Config) http.Handler {
	authn := cfg.authenticator()
	authz := cfg.authorizer()
	sink, policy := cfg.audit()
	resolver := NewRequestInfoResolver()
	ser := statusSerializer()
	long := serverfilters.BasicLongRunningRequestCheck(watchVerbs, noSubresources)

	h = withRequestMetrics(h)
	h = endpointsfilters.WithAuthorization(h, publicAuthorizer{authz}, ser)
	h = withTooManyRequestsStatus(cfg.limit(long), h, ser)
	h = impersonation.WithConstrainedImpersonation(h, authz, ser)
	h = endpointsfilters.WithAudit(h, sink, policy, long)
	failed := endpointsfilters.WithFailedAuthenticationAudit(endpointsfilters.Unauthorized(ser), sink, policy)
	h = endpointsfilters.WithAuthentication(h, publicAuthenticator{authn}, failed, nil, cfg.RequestHeader)
	if cfg.RequestTimeout > 0 {
		h = timeoutWhenAsked(serverfilters.WithTimeoutForNonLongRunningRequests(h, long), h)
		h = endpointsfilters.WithRequestDeadline(h, sink, policy, long, ser, cfg.RequestTimeout)
	}
	// The latency trackers, which the request metrics read to record
	// apiserver_request_sli_duration_seconds, as kube-apiserver sets them.
	h = endpointsfilters.WithLatencyTrackers(h)
	h = endpointsfilters.WithRequestReceivedTimestamp(h)
	h = endpointsfilters.WithRequestInfo(h, resolver)
	h = serverfilters.WithPanicRecovery(h, resolver)
	return endpointsfilters.WithAuditInit(h)
}

// limit is the filter that bounds the requests served at once: priority
// and fairness when on, else the two in-flight bounds.
func (cfg Config) limit(long request.LongRunningRequestCheck) func(http.Handler) http.Handler {
	if cfg.Fairness != nil {
		return func(h http.Handler) http.Handler { return cfg.Fairness.Wrap(h, long, cfg.RequestTimeout) }
	}
	return func(h http.Handler) http.Handler {
		return serverfilters.WithMaxInFlightLimit(h, cfg.MaxRequestsInFlight, cfg.MaxMutatingRequestsInFlight, long)
	}
}

func (cfg Config) authenticator() authenticator.Request {
	if cfg.Insecure {
		return insecureAuthenticator{}
	}
	if cfg.Authenticator == nil {
		panic("filters: Config.Authenticator is required unless Insecure")
	}
	return cfg.Authenticator
}

func (cfg Config) authorizer() authorizer.UnconditionalAuthorizer {
	if cfg.Authorizer == nil {
		return authorizerfactory.NewAlwaysAllowAuthorizer()
	}
	return cfg.Authorizer
}

// audit returns the audit sink and policy, or nils when either is unset:
// the library filters need both.
func (cfg Config) audit() (audit.Sink, audit.PolicyRuleEvaluator) {
	if cfg.AuditBackend == nil || cfg.AuditPolicy == nil {
		return nil, nil
	}
	return cfg.AuditBackend, cfg.AuditPolicy
}

// timeoutWhenAsked sends a request that names its own ?timeout= through
// withTimeout, kube's filter that answers 504 when the handler has not
// answered in time, and every other request straight to h. That filter
// runs each request's handler in a goroutine of its own, whose stack then
// grows to the handler's depth by copying: about a tenth of specd's CPU
// under a get load. The default --request-timeout holds without it: the
// request deadline ends the request's context, and every storage call
// ends with it (a 504 Timeout).
func timeoutWhenAsked(withTimeout, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.RawQuery, "timeout=") {
			withTimeout.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}
