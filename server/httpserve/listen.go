package httpserve

import (
	"fmt"
	"net"
)

// Listen listens on address (HOST:PORT, --listen) for Config.Listener. An
// IPv4 host, 0.0.0.0 among them, is listened on over IPv4 alone, as it is
// written: Go's "tcp" makes 0.0.0.0 a dual-stack socket that reports its
// address as [::], so the default/kubernetes Service would advertise the
// host's IPv6 address, and the login link would name [::].
func Listen(address string) (net.Listener, error) {
	network := "tcp"
	if host, _, err := net.SplitHostPort(address); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.To4() != nil {
			network = "tcp4"
		}
	}
	l, err := net.Listen(network, address)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", address, err)
	}
	return l, nil
}
