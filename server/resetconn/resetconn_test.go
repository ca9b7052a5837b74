package resetconn_test

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/server/resetconn"
)

// pair is a loopback connection accepted through resetconn.Listener:
// the server's end and the client's, with small buffers.
func pair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l = resetconn.Listener(l)
	t.Cleanup(func() { l.Close() })
	client, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	_ = client.(*net.TCPConn).SetReadBuffer(4 << 10)
	if server, err = l.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	_ = server.(interface{ SetWriteBuffer(int) error }).SetWriteBuffer(16 << 10)
	return server, client
}

// readAll reads c to its end, or for 10 s at most.
func readAll(c net.Conn) ([]byte, error) {
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	return io.ReadAll(c)
}

// TestTimedOutWriteResets: a peer that does not read makes a write time
// out; the close that follows resets the connection, so the peer's read
// fails at once instead of waiting for bytes queued behind its window.
func TestTimedOutWriteResets(t *testing.T) {
	server, client := pair(t)
	_ = server.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
	chunk := make([]byte, 64<<10)
	var err error
	for err == nil {
		_, err = server.Write(chunk)
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("write: %v, want a timeout", err)
	}
	server.Close()
	if _, err := readAll(client); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the peer read until %v, want a reset", err)
	}
}

// TestCloseStaysGraceful: without a timed out write, a close is a FIN
// after every byte written.
func TestCloseStaysGraceful(t *testing.T) {
	server, client := pair(t)
	if _, err := server.Write([]byte("last words")); err != nil {
		t.Fatal(err)
	}
	server.Close()
	got, err := readAll(client)
	if err != nil || string(got) != "last words" {
		t.Errorf("the peer read %q, %v; want every byte and EOF", got, err)
	}
}
