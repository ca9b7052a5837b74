package plugins

import "github.com/specd-io/specd/plugins/hook"

// PluginHealth is a plugin's state (hook.Health).
type PluginHealth = hook.Health
