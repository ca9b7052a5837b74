package resetconn

import (
	"errors"
	"net"
	"os"
)

// Listener wraps l: each TCP connection it accepts is reset when it is
// closed after one of its writes timed out. Other connections pass as
// they are.
func Listener(l net.Listener) net.Listener { return listener{l} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		return &conn{tc}, err
	}
	return c, err
}

// conn is a *net.TCPConn whose write timeout makes its close a reset. The
// embedded connection keeps its other methods (ReadFrom for sendfile,
// CloseWrite for net/http's graceful close).
type conn struct{ *net.TCPConn }

func (c *conn) Write(p []byte) (int, error) {
	n, err := c.TCPConn.Write(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		// Whoever closes the connection next (net/http does at once)
		// drops what the peer did not take instead of waiting on it.
		_ = c.SetLinger(0)
	}
	return n, err
}
