package schemas

import (
	"math"
	"regexp"
	"strconv"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// hooksExt binds a resource version to plugins, beside x-specd-resource.
const hooksExt = "x-specd-hooks"

var hooksFields = []string{"default", "validate", "reconcile", "failurePolicy", "timeoutSeconds"}

// FailurePolicy says what a write does when a defaulting or validation
// plugin cannot answer, as a Kubernetes admission webhook's failurePolicy.
type FailurePolicy string

const (
	// FailurePolicyFail refuses the write (the default).
	FailurePolicyFail FailurePolicy = "Fail"
	// FailurePolicyIgnore lets the write go on without the plugin.
	FailurePolicyIgnore FailurePolicy = "Ignore"
)

// The bounds and default of timeoutSeconds, as those of an admission
// webhook.
const (
	DefaultHookTimeout = 10 * time.Second
	minTimeoutSeconds  = 1
	maxTimeoutSeconds  = 30
)

// Hooks is a resource version's x-specd-hooks: the plugins, by name, that
// default, validate and reconcile its objects.
type Hooks struct {
	// Default names the plugin that defaults objects written in this
	// version, after the schema's defaults; "" for none.
	Default string
	// Validate and Reconcile name the plugins that validate and reconcile
	// the resource's objects, in this version: only the storage version
	// may name them.
	Validate  string
	Reconcile string
	// FailurePolicy applies to Default and Validate.
	FailurePolicy FailurePolicy
	// Timeout bounds one call to a plugin.
	Timeout time.Duration
	// File and Pointer say where x-specd-hooks is declared.
	File    string
	Pointer string
}

// Plugins lists the plugins h names, each with the JSON pointer of the
// field that names it.
func (h *Hooks) Plugins() []HookBinding {
	var out []HookBinding
	for _, b := range []HookBinding{
		{Hook: "default", Plugin: h.Default},
		{Hook: "validate", Plugin: h.Validate},
		{Hook: "reconcile", Plugin: h.Reconcile},
	} {
		if b.Plugin != "" {
			b.Pointer = ptr(h.Pointer, b.Hook)
			out = append(out, b)
		}
	}
	return out
}

// HookBinding is one field of x-specd-hooks that names a plugin.
type HookBinding struct {
	Hook    string // default, validate or reconcile
	Plugin  string
	Pointer string // JSON pointer of the field in Hooks.File
}

// pluginNameRE is what a plugin name may be: the name of a file in the
// plugins directory, without a path or a leading dot.
var pluginNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

const maxPluginName = 255

// decodeHooks reads the x-specd-hooks of the components schema at pointer;
// nil when it has none or it is unusable.
func decodeHooks(d decoder, pointer string, s *openapi3.Schema) *Hooks {
	v, present := s.Extensions[hooksExt]
	if !present {
		return nil
	}
	at := ptr(pointer, hooksExt)
	m, ok := d.object(v, at, hooksFields...)
	if !ok {
		return nil
	}
	h := &Hooks{File: d.file, Pointer: at, FailurePolicy: FailurePolicyFail, Timeout: DefaultHookTimeout}
	for _, f := range []struct {
		key string
		to  *string
	}{{"default", &h.Default}, {"validate", &h.Validate}, {"reconcile", &h.Reconcile}} {
		name, ok := d.str(m, f.key, at)
		if !ok {
			continue
		}
		if len(name) > maxPluginName || !pluginNameRE.MatchString(name) {
			d.probs.add(d.file, ptr(at, f.key), "plugin name %q: must be the name of a file in the plugins directory (letters, digits, '.', '_' and '-', not starting with '.', '_' or '-')", name)
			continue
		}
		*f.to = name
	}
	if _, given := m["failurePolicy"]; given {
		p, _ := d.str(m, "failurePolicy", at)
		switch FailurePolicy(p) {
		case FailurePolicyFail, FailurePolicyIgnore:
			h.FailurePolicy = FailurePolicy(p)
		default:
			if _, isStr := m["failurePolicy"].(string); isStr {
				d.probs.add(d.file, ptr(at, "failurePolicy"), "failurePolicy %q: must be Fail or Ignore", p)
			}
		}
	}
	if t, given := m["timeoutSeconds"]; given {
		f, ok := number(t)
		if !ok || f != math.Trunc(f) || f < minTimeoutSeconds || f > maxTimeoutSeconds {
			d.probs.add(d.file, ptr(at, "timeoutSeconds"), "timeoutSeconds must be an integer from %d to %d, not %s",
				minTimeoutSeconds, maxTimeoutSeconds, valueText(t))
		} else {
			h.Timeout = time.Duration(f) * time.Second
		}
	}
	if h.Default == "" && h.Validate == "" && h.Reconcile == "" {
		if _, named := firstPresent(m, "default", "validate", "reconcile"); !named {
			d.probs.add(d.file, at, "names no plugin: set default, validate or reconcile")
		}
		return nil
	}
	return h
}

// firstPresent returns the first of keys that m has.
func firstPresent(m map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return k, true
		}
	}
	return "", false
}

// valueText names a decoded JSON value in a message: the number itself,
// or its type.
func valueText(v any) string {
	if f, ok := number(v); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return jsonType(v)
}

// checkStrayHooks reports an x-specd-hooks on a components schema that is
// not a resource: it would bind nothing.
func checkStrayHooks(d decoder, name string, s *openapi3.Schema) {
	if _, present := s.Extensions[hooksExt]; present {
		d.probs.add(d.file, ptr("/components/schemas", name, hooksExt),
			"%s belongs beside %s: schema %s is not a resource", hooksExt, resourceExt, name)
	}
}

// checkHooks reports validate and reconcile bindings on a version that is
// not the storage version of res: both see objects as stored.
func checkHooks(res *Resource, probs *problems) {
	if res.StorageVersion == "" {
		return // no storage version: reported already
	}
	for _, rv := range res.Versions {
		h := rv.Hooks
		if h == nil || rv.Storage {
			continue
		}
		for _, b := range h.Plugins() {
			if b.Hook == "default" {
				continue
			}
			probs.add(h.File, b.Pointer,
				"%s may be bound only on the storage version %s of kind %s: it sees objects as stored (default may be bound on any version)",
				b.Hook, res.StorageVersion, res.Kind)
		}
	}
}
