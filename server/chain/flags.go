package chain

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/specd-io/specd/server"
	"github.com/specd-io/specd/server/auditlog"
	"github.com/specd-io/specd/server/authn"
	"github.com/spf13/pflag"
)

// Flags are the flags of the request chain: who a request is
// (authentication), what is audited, and how many requests run at once
// for how long; kube-apiserver's flags of the same names.
type Flags struct {
	Authn               authn.Flags
	Audit               auditlog.Flags
	MaxRequestsInFlight int
	MaxMutatingRequests int
	PriorityAndFairness bool
	RequestTimeout      time.Duration
	MinRequestTimeout   time.Duration
}

// Register defines the flags on three sets, as kube-apiserver's help
// groups them: the request limits on generic, the Authn flags on authn
// and the Audit flags on audit (they may be one set).
func (c *Flags) Register(generic, authn, audit *pflag.FlagSet) {
	c.Authn.Register(authn)
	c.Audit.Register(audit)
	fs := generic
	fs.IntVar(&c.MaxRequestsInFlight, "max-requests-inflight", 400, "reads served at once, beyond which a request gets 429; 0 for no limit (watches do not count)")
	fs.IntVar(&c.MaxMutatingRequests, "max-mutating-requests-inflight", 200, "writes served at once, beyond which a request gets 429; 0 for no limit")
	fs.BoolVar(&c.PriorityAndFairness, "enable-priority-and-fairness", true, "share the sum of the two in-flight limits among users and priority levels, as kube-apiserver's API Priority and Fairness with its built-in configuration, instead of the two limits")
	fs.DurationVar(&c.RequestTimeout, "request-timeout", time.Minute, "longest a request other than a watch may take before it gets 504; 0 for no limit")
	c.MinRequestTimeout = 30 * time.Minute
	fs.Func("min-request-timeout", "the `seconds` a watch without timeoutSeconds lasts at least; it ends at a random time between this and twice this (default 1800); with 0, as in kube-apiserver, such a watch ends at once", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("want a number of seconds, 0 or more, not %q", v)
		}
		c.MinRequestTimeout = time.Duration(n) * time.Second
		return nil
	})
}

// ServerMinRequestTimeout is server.Config's MinRequestTimeout, where 0
// is the default and kube's 0 is server.NoMinRequestTimeout.
func (c Flags) ServerMinRequestTimeout() time.Duration {
	if c.MinRequestTimeout == 0 {
		return server.NoMinRequestTimeout
	}
	return c.MinRequestTimeout
}

// Check says what is wrong with the flags.
func (c Flags) Check() error {
	if c.PriorityAndFairness && c.MaxRequestsInFlight+c.MaxMutatingRequests <= 0 {
		return errors.New("--max-requests-inflight plus --max-mutating-requests-inflight must be positive with --enable-priority-and-fairness")
	}
	if err := c.Authn.Check(); err != nil {
		return err
	}
	return c.Audit.Check()
}
