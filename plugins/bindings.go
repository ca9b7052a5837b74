package plugins

import (
	"fmt"

	"github.com/specd-io/specd/schemas"
)

// CheckBindings refuses a registry whose x-specd-hooks name a plugin that
// is not in the plugins directory, naming the file and pointer of each
// binding, as a broken schema is refused. Only what can run is checked:
// the defaulting bindings of served versions, and the validate and
// reconcile bindings of the storage version of a resource that is served.
// It reads the directory again first: a plugin dropped into it with the
// schema that binds it serves without a restart.
func (c *Catalog) CheckBindings(reg *schemas.Registry) error {
	added, err := c.Rescan()
	if err != nil {
		return fmt.Errorf("--plugins: %w", err)
	}
	if len(added) > 0 {
		c.log.Info("new plugins in the plugins directory", "dir", c.dir, "plugins", added)
	}
	var problems []schemas.Problem
	for _, b := range activeBindings(reg) {
		if !c.Has(b.Plugin) {
			problems = append(problems, schemas.Problem{File: b.file, Pointer: b.Pointer,
				Message: fmt.Sprintf("%s plugin %q: %s", b.Hook, b.Plugin, c.missing())})
		}
	}
	if len(problems) > 0 {
		return &schemas.LoadError{Problems: problems}
	}
	return nil
}

// binding is a hook binding and the schema file that declares it.
type binding struct {
	schemas.HookBinding
	file string
}

// activeBindings are the bindings of reg that serving may call.
func activeBindings(reg *schemas.Registry) []binding {
	var out []binding
	for _, res := range reg.Resources() {
		if !res.Served() {
			continue
		}
		for _, rv := range res.Versions {
			out = append(out, versionBindings(rv)...)
		}
	}
	return out
}

// versionBindings are the bindings of rv that serving may call: its
// defaulting plugin when it is served, its others when it is stored.
func versionBindings(rv *schemas.ResourceVersion) []binding {
	if rv.Hooks == nil {
		return nil
	}
	var out []binding
	for _, b := range rv.Hooks.Plugins() {
		if (b.Hook == "default" && rv.Served()) || (b.Hook != "default" && rv.Storage) {
			out = append(out, binding{b, rv.Hooks.File})
		}
	}
	return out
}
