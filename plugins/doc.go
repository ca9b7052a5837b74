// Package plugins hosts specd's out-of-process plugins: programs in the
// --plugins directory that specd starts through hashicorp/go-plugin and
// calls over gRPC (the protocol is plugins/proto) to default, validate and
// reconcile objects.
//
// A Host owns the processes. It starts each plugin on first use (the
// start has its own bound, not its caller's deadline), restarts one that
// dies (with exponential backoff), kills one that does not answer before
// its caller's deadline, logs each plugin's stderr under its name,
// and serves plugins the hook.Callbacks through go-plugin's broker. It is
// the engine's hook.Admission and the controllers' hook.Reconciler (the
// contract is plugins/hook). Whatever a plugin does, a call returns an
// answer or a *CallError, promptly; the engine decides what a CallError
// means for the request (the binding's failure policy).
//
// A Catalog is the plugins directory itself: it answers what serving asks
// before any plugin runs, which hook bindings of a registry name a plugin
// the directory lacks (CheckBindings), and tells the Host where each
// plugin is. The Host gives one readiness line per plugin (ReadyChecks).
// The Host is made with the engine's Store (engine.Options.Admission),
// whose Client it serves plugins as their callbacks.
//
// Plugin authors use plugins/sdk, which does not import this package.
package plugins
