package crd

import (
	"context"
	"time"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/schemas"
)

// maxInstallWait bounds how long a request waits for this replica's
// registry to serve a resource whose CRD storage says is Established:
// one reload, which takes milliseconds to seconds.
const maxInstallWait = 10 * time.Second

// Installed answers a request for a resource that the registry holds
// but does not serve, its CRD not Established when the registry was
// loaded (schemas.Resource.Installing). The Controller writes
// Established once the registry holds the resource, and the Feed serves
// it when it sees that write, so a client that saw the condition may
// ask before the Feed did. Installed reads the CRD from store (etcd, not
// a cache) and, when it is Established, waits for a registry that
// serves the resource and returns it; nil when the CRD is not
// Established, or the wait ends first.
func (a *API) Installed(store engine.Objects) func(context.Context, *schemas.Resource) *schemas.Registry {
	return func(ctx context.Context, res *schemas.Resource) *schemas.Registry {
		if !a.established(ctx, store, res.CRD) {
			return nil
		}
		ctx, cancel := context.WithTimeout(ctx, maxInstallWait)
		defer cancel()
		for {
			reg := a.cfg.Registry()
			if r := reg.Resource(res.GroupResource()); r.Served() && r.CRD == res.CRD {
				return reg
			}
			if ctx.Err() != nil {
				a.log.Warn("an Established CustomResourceDefinition is not served yet", "name", res.CRD, "err", ctx.Err())
				return nil
			}
			background.Sleep(ctx, EstablishPoll)
		}
	}
}

// established reports whether the CRD named name is Established in
// storage.
func (a *API) established(ctx context.Context, store engine.Objects, name string) bool {
	rv := Resource(a.cfg.Registry())
	if rv == nil || name == "" {
		return false
	}
	data, err := store.Get(ctx, engine.Ref{Version: rv, Namespace: "", Name: name})
	if err != nil {
		a.log.Debug("cannot read a CustomResourceDefinition being installed", "name", name, "err", err)
		return false
	}
	o, err := decode(data)
	return err == nil && isTrue(o.Status.Conditions, Established)
}
