package configdata

import (
	"github.com/specd-io/specd/engine"
)

// The engine's keys (plural.group) of the two resources; the core group
// is "".
const (
	Secrets    = "secrets"
	ConfigMaps = "configmaps"
)

// maxSize is kube's limit on the data of a Secret or a ConfigMap
// (core.MaxSecretSize).
const maxSize = 1 << 20

// Mutators are the engine.Options.Mutators of Secrets and ConfigMaps.
func Mutators() map[string]engine.Mutator {
	return map[string]engine.Mutator{Secrets: mutateSecret, ConfigMaps: mutateConfigMap}
}

// WriteChecks are the engine.Options.WriteChecks of Secrets and
// ConfigMaps.
func WriteChecks() map[string]engine.WriteCheck {
	return map[string]engine.WriteCheck{Secrets: checkSecret, ConfigMaps: checkConfigMap}
}
