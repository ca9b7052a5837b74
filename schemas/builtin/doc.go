// Package builtin holds the schema files of the API groups built into
// specd, in specd's own format (docs/schema-format.md): the kinds that
// kube-apiserver serves and that specd serves as resources like any other,
// stored in etcd, watched and validated by their schema. They enter the
// same Registry as the user's schema files (Schemas, for a
// schemas.Loader), and a user's
// file may not declare one of their groups (ReservedGroups).
//
// Files are laid out as <group>/<version>.yaml, core/<version>.yaml for
// the core group (x-specd.group ""); problems in them are reported under
// the name "builtin/<group>/<version>.yaml".
package builtin

import (
	"embed"
	"slices"

	"github.com/specd-io/specd/schemas"
)

// FS holds the built-in schema files.
//
//go:embed */*.yaml
var FS embed.FS

// Name is the directory name problems in FS's files are reported under.
const Name = "builtin"

// reservedGroups are the groups that user schema files may not declare:
// the groups of FS's files (the core group "", coordination.k8s.io,
// events.k8s.io, whose Events are the core group's, RBAC, and specd's own
// status.specd.io, whose objects engine/statusapi writes), and those
// specd serves in code (authentication.k8s.io and authorization.k8s.io
// reviews).
var reservedGroups = []string{
	"",
	"apiextensions.k8s.io",
	"authentication.k8s.io",
	"authorization.k8s.io",
	"coordination.k8s.io",
	"events.k8s.io",
	"rbac.authorization.k8s.io",
	"status.specd.io",
}

// ReservedGroups returns the API groups that user schema files may not
// declare, sorted.
func ReservedGroups() []string {
	return append([]string(nil), reservedGroups...)
}

// specdGroup is the reserved group that is specd's own: no Kubernetes
// cluster serves it.
const specdGroup = "status.specd.io"

// HostGroups returns the ReservedGroups a Kubernetes cluster serves
// itself: all but specd's own status.specd.io. Aggregated, specd
// registers no APIService for these, and their objects are the host's.
func HostGroups() []string {
	return slices.DeleteFunc(ReservedGroups(), func(g string) bool { return g == specdGroup })
}

// essentialGroups are the groups --disable may not name: specd's RBAC
// authorization reads rbac.authorization.k8s.io, and the review groups are
// served in code.
var essentialGroups = []string{
	"authentication.k8s.io",
	"authorization.k8s.io",
	"rbac.authorization.k8s.io",
}

// Schemas is the built-in files for a schemas.Loader (and
// serving.Config.Builtin): loaded before the user's, their groups and
// ReservedGroups closed to the user's files; every group but the
// essential ones may be disabled.
func Schemas() schemas.Builtin {
	return schemas.Builtin{FS: FS, Name: Name, Reserved: ReservedGroups(), Essential: slices.Clone(essentialGroups)}
}
