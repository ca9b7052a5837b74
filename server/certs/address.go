package certs

import (
	"fmt"
	"net"
	"os"
)

// Hosts are the names the serving certificate must hold for a server
// listening on listen (HOST:PORT) beyond the loopback ones Ensure always
// adds: its host, or the machine's name when it listens on every address.
func Hosts(listen string) ([]string, error) {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return []string{host}, nil
	}
	name, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("certs: host name: %w", err)
	}
	return []string{name}, nil
}

// LocalURL is the URL of a server listening at addr (a listener's
// address) as a client on the same machine reaches it: an address that
// stands for all interfaces is reached through 127.0.0.1, which a
// dual-stack listener on [::] also answers.
func LocalURL(scheme string, addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return scheme + "://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
