package statusapi

import (
	"github.com/specd-io/specd/plugins/identity"
	"github.com/specd-io/specd/schemas"
)

type pluginStatus struct {
	State        string    `json:"state"`
	Running      bool      `json:"running"`
	Restarts     int       `json:"restarts"`
	LastError    string    `json:"lastError,omitempty"`
	User         string    `json:"user"`
	ClusterRole  string    `json:"clusterRole"`
	BindingCount int       `json:"bindingCount"`
	Bindings     []binding `json:"bindings,omitempty"`
}

type binding struct {
	Group         string `json:"group"`
	Resource      string `json:"resource"`
	Version       string `json:"version"`
	Hook          string `json:"hook"`
	FailurePolicy string `json:"failurePolicy,omitempty"`
	Timeout       string `json:"timeout,omitempty"`
	File          string `json:"file,omitempty"`
	Pointer       string `json:"pointer,omitempty"`
}

// plugins are the Plugin objects: one per plugin of the directory, with
// the bindings the served schemas give it.
func (p *publisher) plugins() map[string]any {
	if p.cfg.Plugins == nil {
		return map[string]any{}
	}
	bindings := p.bindings(p.cfg.Schemas.Registry())
	out := map[string]any{}
	for _, pl := range p.cfg.Plugins() {
		bs := bindings[pl.Name]
		out[objectName(pl.Name)] = pluginStatus{State: pl.State, Running: pl.Running, Restarts: pl.Restarts, LastError: pl.LastError,
			User: identity.UserName(pl.Name), ClusterRole: identity.RoleName(pl.Name), BindingCount: len(bs), Bindings: bs}
	}
	return out
}

// bindings are the hook bindings of reg by plugin.
func (p *publisher) bindings(reg *schemas.Registry) map[string][]binding {
	out := map[string][]binding{}
	for _, rv := range resourceVersions(reg) {
		if rv.Hooks == nil {
			continue
		}
		h := rv.Hooks
		for _, b := range h.Plugins() {
			bd := binding{Group: rv.Resource.Group, Resource: rv.Resource.Plural, Version: rv.Version, Hook: b.Hook,
				File: p.fileName(h.File), Pointer: b.Pointer}
			if b.Hook != "reconcile" {
				bd.FailurePolicy = string(h.FailurePolicy)
				if h.Timeout > 0 {
					bd.Timeout = h.Timeout.String()
				}
			}
			out[b.Plugin] = append(out[b.Plugin], bd)
		}
	}
	return out
}
