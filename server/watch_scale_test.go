package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine/watchcache"
)

// smallSendBuffers makes every accepted connection's send buffer small,
// so that a client that does not read blocks its handler after a few
// events instead of after megabytes of kernel buffers.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(16 << 10)
	}
	return c, err
}

// TestThousandWatchers: 1,000 watchers of one resource all get every
// event, while one more watcher that never reads is cut off rather than
// holding them back. Loopback only; bounded by the test's deadline.
func TestThousandWatchers(t *testing.T) {
	const (
		watchers = 1000
		events   = 200
	)
	// The slow watcher's write blocks from its first events until the
	// test reads it at the end: on a loaded machine that is more than the
	// default write timeout, which would close the connection instead of
	// letting the stream end. The cut-off tested here is the cache's.
	e := startWatchServerWith(t, watchcache.Config{WatcherBuffer: 64},
		func(l net.Listener) net.Listener { return smallSendBuffers{l} }, nil,
		func(c *Config) { c.WatchWriteTimeout = 5 * time.Minute })
	start := e.create(t, "start", "red")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// The slow watcher: a raw connection that sends its request and never
	// reads, with a small receive buffer.
	slow, err := net.Dial("tcp", strings.TrimPrefix(e.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	_ = slow.(*net.TCPConn).SetReadBuffer(4 << 10)
	fmt.Fprintf(slow, "GET %s?watch=true&resourceVersion=%s HTTP/1.1\r\nHost: x\r\n\r\n", watchWidgets, start)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: watchers}}
	var ready, done sync.WaitGroup
	var complete atomic.Int64
	// progress[i] is how many events watcher i has read. The writer keeps
	// within lag events of the slowest reading watcher, so that on a busy
	// machine none of them falls a whole buffer behind: the one cut off
	// must be the one that stopped reading.
	const lag = 32
	progress := make([]atomic.Int64, watchers)
	errs := make(chan error, watchers)
	for i := range watchers {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			req, _ := http.NewRequestWithContext(ctx, "GET", e.URL+watchWidgets+"?watch=true&resourceVersion="+start, nil)
			resp, err := client.Do(req)
			ready.Done()
			if err != nil {
				errs <- fmt.Errorf("watcher %d: %w", i, err)
				progress[i].Store(events)
				return
			}
			defer progress[i].Store(events) // a failed watcher holds no one back
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for n := 0; n < events; n++ {
				if !sc.Scan() {
					errs <- fmt.Errorf("watcher %d: stream ended after %d events: %v", i, n, sc.Err())
					return
				}
				if name := gjson.GetBytes(sc.Bytes(), "object.metadata.name").Str; name != fmt.Sprintf("x%03d", n) {
					errs <- fmt.Errorf("watcher %d: event %d is %s", i, n, name)
					return
				}
				progress[i].Store(int64(n + 1))
			}
			complete.Add(1)
		}()
	}
	ready.Wait()
	notes := strings.Repeat("n", 2000)
	began := time.Now()
	for i := range events {
		for slowest(progress) < int64(i-lag) {
			if ctx.Err() != nil {
				t.Fatal("the watchers stopped reading")
			}
			time.Sleep(time.Millisecond)
		}
		body := strings.Replace(widgetJSON(fmt.Sprintf("x%03d", i), "red"), `"spec":{`, `"spec":{"notes":"`+notes+`",`, 1)
		e.do(t, "POST", watchWidgets, body, 201)
	}
	done.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d of %d watchers got all %d events in %v", complete.Load(), watchers, events, time.Since(began).Round(time.Millisecond))

	// The slow watcher was cut off: what it can still read ends with the
	// last chunk of the response (the connection stays open for the next
	// request), short of the events the others got.
	_ = slow.SetReadDeadline(time.Now().Add(30 * time.Second))
	var got []byte
	buf := make([]byte, 64<<10)
	for !bytes.HasSuffix(got, []byte("\r\n0\r\n\r\n")) {
		n, err := slow.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("the slow watcher's stream did not end: %v (read %d bytes)", err, len(got))
		}
	}
	if n := bytes.Count(got, []byte(`{"type":"ADDED"`)); n >= events {
		t.Errorf("the slow watcher got %d events, want it cut off before %d", n, events)
	} else {
		t.Logf("the slow watcher got %d events and was cut off", n)
	}
}

func slowest(progress []atomic.Int64) int64 {
	low := int64(1 << 62)
	for i := range progress {
		low = min(low, progress[i].Load())
	}
	return low
}

// TestShutdownWithStalledWatcher: Shutdown does not wait for a watch whose
// client stopped reading (its handler is blocked writing).
func TestShutdownWithStalledWatcher(t *testing.T) {
	e := startWatchServerOn(t, watchcache.Config{},
		func(l net.Listener) net.Listener { return smallSendBuffers{l} }, nil)
	start := e.create(t, "start", "red")
	notes := strings.Repeat("n", 2000)
	for i := range 200 {
		e.do(t, "POST", watchWidgets, strings.Replace(widgetJSON(fmt.Sprintf("s%03d", i), "red"), `"spec":{`, `"spec":{"notes":"`+notes+`",`, 1), 201)
	}
	slow, err := net.Dial("tcp", strings.TrimPrefix(e.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	_ = slow.(*net.TCPConn).SetReadBuffer(4 << 10)
	fmt.Fprintf(slow, "GET %s?watch=true&resourceVersion=%s HTTP/1.1\r\nHost: x\r\n\r\n", watchWidgets, start)
	time.Sleep(300 * time.Millisecond) // the handler fills the socket and blocks
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	began := time.Now()
	if err := e.srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a stalled watcher: %v after %v", err, time.Since(began))
	}
	t.Logf("Shutdown took %v", time.Since(began).Round(time.Millisecond))
}
