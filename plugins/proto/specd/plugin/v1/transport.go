package pluginv1

import "google.golang.org/grpc"

// window is the HTTP/2 flow-control window of a connection between specd
// and a plugin, and of each call on it. Setting it turns off gRPC's dynamic
// window, whose bandwidth-delay probe adds a PING and its ack, two more
// wake-ups of each process, to calls that carry data; a window this large
// leaves nothing for the probe to find on a unix socket.
const window = 4 << 20

// DialOptions are the gRPC dial options of specd's connection to a plugin.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithInitialWindowSize(window),
		grpc.WithInitialConnWindowSize(window),
	}
}

// ServerOptions are the gRPC server options of a plugin's Plugin service
// and of specd's Host service, for the same reason.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.InitialWindowSize(window),
		grpc.InitialConnWindowSize(window),
	}
}
