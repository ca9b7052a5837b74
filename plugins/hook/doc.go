// Package hook is the contract between specd's engine, its controllers
// and its plugin host, in the manner of go-plugin's "shared" package: the
// requests and answers of the default, validate and reconcile hooks, and
// the small interfaces each side calls. The engine calls an Admission, the
// controllers call a Reconciler, and the plugin host implements both; a
// reconciler calls back through Callbacks, which the controllers' Client
// implements and the host serves to plugins.
//
// It imports nothing of specd's, so that each side can import it. Plugin
// authors use plugins/sdk, whose public types are its own.
package hook
