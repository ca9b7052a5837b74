// Package controller runs the reconcilers that schemas bind with
// x-specd-hooks reconcile: one Controller per bound resource, level based,
// as Kubernetes controllers are.
//
// A Controller watches its resource through the engine's watch cache and
// puts the namespace/name of every object that is added or changes (or
// whose controlled objects, by ownerReference, change) on a work queue (k8s.io/client-go/util/workqueue: a key queued while it is
// being worked on is worked on again afterwards, never twice at once;
// failures are retried with exponential backoff). Workers read the current
// object and hand it to the plugin, which sees nothing else: no event, no
// previous state. What it answers is applied here: its status is written
// through the status subresource with observedGeneration, a requeue-after
// schedules the key again, and on a deleting object FinalizerDone removes
// the finalizer the plugin asked for (the Controller adds that finalizer to
// every object that lacks it and is not being deleted).
//
// Manager starts a Controller for every bound resource of a registry, and
// starts them again when a reload swaps the registry; RunControllers
// starts a Manager once there is something to reconcile (AwaitWork), as
// specd serve runs it: only in the replica elected by engine/leader, so
// that of several specd replicas on one etcd exactly one reconciles.
//
// Client is what a reconciler reads and writes through (the plugin host
// serves it to plugins as their hook.Callbacks): the engine's Objects
// behind the same names a REST client uses.
package controller
