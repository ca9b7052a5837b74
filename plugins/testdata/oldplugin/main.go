// Command oldplugin is a plugin built for another protocol version than
// the host's: it shakes hands with protocol version 2 and serves nothing.
package main

import (
	plugin "github.com/hashicorp/go-plugin"

	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

func main() {
	hs := pluginv1.Handshake
	hs.ProtocolVersion = pluginv1.ProtocolVersion + 1
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: hs,
		Plugins:         plugin.PluginSet{},
		GRPCServer:      plugin.DefaultGRPCServer,
	})
}
