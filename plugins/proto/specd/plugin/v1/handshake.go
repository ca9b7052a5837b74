package pluginv1

import plugin "github.com/hashicorp/go-plugin"

// ProtocolVersion is the go-plugin protocol version this package speaks. It
// changes only with an incompatible protocol, together with the package
// (specd.plugin.v2); specd refuses a plugin that announces another one.
const ProtocolVersion = 1

// PluginName is the name the plugin is served under in go-plugin's plugin
// set.
const PluginName = "specd"

// MagicCookieKey and MagicCookieValue are the environment variable specd
// sets when it starts a plugin. They are not a secret: they only let a
// plugin tell that it was started by specd and not by hand. They must never
// change, or every plugin ever built stops starting.
const (
	MagicCookieKey   = "SPECD_PLUGIN_MAGIC_COOKIE"
	MagicCookieValue = "3f0c8e5b7d2a4e19b6c1d8f07a9e2b4c"
)

// Handshake is the go-plugin handshake of protocol version 1, shared by the
// host and plugins/sdk.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   MagicCookieKey,
	MagicCookieValue: MagicCookieValue,
}
