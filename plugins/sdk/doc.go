// Package sdk is what a Go plugin for specd imports. A plugin is a main
// package that registers its functions per API group and kind and hands
// them to Serve:
//
//	func main() {
//		sdk.Serve(
//			sdk.Defaulter("fleet.example.com", "Ship", defaultShip),
//			sdk.Validator("fleet.example.com", "Ship", validateShip),
//			sdk.Reconciler("fleet.example.com", "Fleet", reconcileFleet).WithFinalizer("fleet.example.com/ships"),
//		)
//	}
//
// Objects arrive as JSON in an *Object, read and changed by path
// (Object.String, Object.Set, ...). A reconciler gets a Client that reads
// and writes objects through specd; its errors carry the Kubernetes Status
// (IsNotFound, IsConflict, ...). It also gets Events, which records
// Kubernetes Events about its object (req.Events.Normal("Scaled", "...")).
// docs/plugins.md is the guide.
//
// The package imports only the protocol (plugins/proto), go-plugin, gRPC
// and gjson/sjson, so a plugin does not link specd.
package sdk
