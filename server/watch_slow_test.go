package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine/watchcache"
)

// slowRun is one run of watchers beside stalled clients under writes.
type slowRun struct {
	watchers, stalled, writes int
	rate                      int // writes per second asked for
	buffer                    int // the watch cache's per-watcher buffer
	writeTimeout              time.Duration
	notes                     int // bytes of spec.notes in each widget
	// readersApart runs the reading watchers in a child process, so that
	// this process's memory is the server's, its etcd's and the writer's.
	readersApart bool
}

// slowResult is what a slowRun saw.
type slowResult struct {
	elapsed time.Duration
	// serverCPU is this process's CPU time (user and system) from the
	// first write to the last reader's end; readersCPU the child's, when
	// the readers run apart.
	serverCPU, readersCPU time.Duration
	rewatches             atomic.Int64 // reading watchers cut off that watched again
	stalledClosed         int          // stalled clients whose connection the server closed
	stalledMost           int          // the most events one stalled client got
	peakRSS, peakHeap     uint64
	errs                  []error
}

// runSlowWatchers opens run.watchers watches that read every event and
// run.stalled that never read, then creates run.writes widgets at about
// run.rate a second. A reading watcher whose stream ends watches again
// from the last resourceVersion it saw, as client-go's reflector does; it
// must get every widget once, in resourceVersion order. Each stalled
// client must be cut off short of the last widget. Memory is sampled meanwhile: the
// process holds the server, its embedded etcd, the writer and the readers.
func runSlowWatchers(tb testing.TB, run slowRun) *slowResult {
	e := startWatchServerWith(tb, watchcache.Config{WatcherBuffer: run.buffer},
		func(l net.Listener) net.Listener { return smallSendBuffers{l} }, nil,
		func(c *Config) { c.WatchWriteTimeout = run.writeTimeout })
	start := e.create(tb, "start", "red")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	res := &slowResult{}
	stalled := openStalled(tb, e.URL, start, run.stalled)
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	var readers interface{ wait() []error }
	if run.readersApart {
		readers = startSlowReadersApart(tb, e.URL, start, run.watchers, run.writes, &res.rewatches)
	} else {
		readers = startSlowReaders(readCtx, e.URL, start, run.watchers, run.writes, &res.rewatches)
	}
	stopSampling := sampleMemory(res)
	began, cpuBefore := time.Now(), processCPU()
	if err := writeWidgets(ctx, e.URL, run.writes, run.rate, strings.Repeat("n", run.notes)); err != nil {
		tb.Fatal(err)
	}
	// Readers that have not got every widget a minute after the last
	// write never will.
	late := time.AfterFunc(time.Minute, func() {
		stopReading()
		if apart, ok := readers.(*readersApartProcess); ok {
			_ = apart.cmd.Process.Kill()
		}
	})
	defer late.Stop()
	res.errs = readers.wait()
	res.elapsed, res.serverCPU = time.Since(began), processCPU()-cpuBefore
	if apart, ok := readers.(*readersApartProcess); ok && apart.cmd.ProcessState != nil {
		res.readersCPU = apart.cmd.ProcessState.UserTime() + apart.cmd.ProcessState.SystemTime()
	}
	stopSampling()
	for _, c := range stalled {
		n, closed := drainStalled(c, run.writeTimeout+5*time.Second)
		res.stalledMost = max(res.stalledMost, n)
		if closed {
			res.stalledClosed++
		}
	}
	return res
}

// openStalled opens n watches on raw connections with small receive
// buffers that send their request and never read.
func openStalled(tb testing.TB, url, from string, n int) []net.Conn {
	var conns []net.Conn
	for range n {
		c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { c.Close() })
		_ = c.(*net.TCPConn).SetReadBuffer(4 << 10)
		fmt.Fprintf(c, "GET %s?watch=true&resourceVersion=%s HTTP/1.1\r\nHost: x\r\n\r\n", watchWidgets, from)
		conns = append(conns, c)
	}
	return conns
}

// drainStalled reads what a stalled client was sent until its connection
// is closed (true) or wait passes (false), and counts the events in it.
func drainStalled(c net.Conn, wait time.Duration) (int, bool) {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	var got bytes.Buffer
	_, err := io.Copy(&got, c)
	ended := err == nil || !isTimeout(err)
	return bytes.Count(got.Bytes(), []byte(`{"type":"ADDED"`)), ended
}

func isTimeout(err error) bool {
	var ne net.Error
	ok := errors.As(err, &ne)
	return ok && ne.Timeout()
}

// readers are the reading watchers of a run.
type readers struct {
	done sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

func (r *readers) fail(err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.mu.Unlock()
}

func (r *readers) wait() []error {
	r.done.Wait()
	return r.errs
}

// startSlowReaders opens n watches from revision from, each of which must read
// want widgets; it returns once all are open.
func startSlowReaders(ctx context.Context, url, from string, n, want int, rewatches *atomic.Int64) *readers {
	r := &readers{}
	// Reads of 32 KB take many events at once when the server sends them
	// together.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, ReadBufferSize: 32 << 10}}
	var opened sync.WaitGroup
	for i := range n {
		opened.Add(1)
		r.done.Go(func() {
			if err := readAll(ctx, client, url, from, want, opened.Done, rewatches); err != nil {
				r.fail(fmt.Errorf("watcher %d: %w", i, err))
			}
		})
	}
	opened.Wait()
	return r
}

// readAll watches from rv until it has read want widgets, watching again
// from the last resourceVersion whenever the stream ends. Only creates
// happen, each at a resourceVersion of its own: resourceVersions that
// only grow, and want of them, are every widget once, in order.
func readAll(ctx context.Context, client *http.Client, url, rv string, want int, opened func(), rewatches *atomic.Int64) error {
	last, _ := strconv.ParseInt(rv, 10, 64)
	got := 0
	for first := true; got < want; first = false {
		if !first {
			rewatches.Add(1)
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", url+watchWidgets+"?watch=true&resourceVersion="+strconv.FormatInt(last, 10), nil)
		resp, err := client.Do(req)
		if first {
			opened()
		}
		if err != nil {
			return fmt.Errorf("got %d of %d widgets: %w", got, want, err)
		}
		err = readStream(resp.Body, &last, &got, want)
		resp.Body.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// readStream reads events until the stream ends or want widgets are
// counted, checking that resourceVersions only grow. It finds each
// event's resourceVersion by scanning its bytes, not by parsing it: 2,000
// readers share the server's cores.
func readStream(body io.Reader, last *int64, got *int, want int) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for *got < want && sc.Scan() {
		line := sc.Bytes()
		rv, ok := addedResourceVersion(line)
		if !ok {
			return fmt.Errorf("event %.200s", line)
		}
		if rv <= *last {
			return fmt.Errorf("%s at %d after %d: out of order", gjson.GetBytes(line, "object.metadata.name").Str, rv, *last)
		}
		*last = rv
		*got++
	}
	return nil // the server ended the stream, or the client went
}

var (
	addedPrefix = []byte(`{"type":"ADDED","object":{`)
	rvField     = []byte(`"resourceVersion":"`)
)

// addedResourceVersion is the resourceVersion of an ADDED event line: the
// first resourceVersion field in it, that of the object's metadata (a
// widget has no other).
func addedResourceVersion(line []byte) (int64, bool) {
	if !bytes.HasPrefix(line, addedPrefix) {
		return 0, false
	}
	i := bytes.Index(line, rvField)
	if i < 0 {
		return 0, false
	}
	rest := line[i+len(rvField):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return 0, false
	}
	rv, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return rv, err == nil
}

// writeWidgets creates n widgets at about rate a second from 8 writers.
func writeWidgets(ctx context.Context, url string, n, rate int, notes string) error {
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	next := make(chan int)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range next {
				if err := postWidget(ctx, url, fmt.Sprintf("w%06d", i), notes); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var err error
	for i := 0; i < n && err == nil; i++ {
		select {
		case <-tick.C:
			next <- i
		case err = <-errs:
		}
	}
	close(next)
	wg.Wait()
	return err
}

// postWidget creates a widget with notes in its spec.
func postWidget(ctx context.Context, url, name, notes string) error {
	body := strings.Replace(widgetJSON(name, "red"), `"spec":{`, `"spec":{"notes":"`+notes+`",`, 1)
	req, _ := http.NewRequestWithContext(ctx, "POST", url+watchWidgets, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("create %s: %d", name, resp.StatusCode)
	}
	return nil
}

// sampleMemory notes the process's peak RSS and heap every 100ms until
// the returned function is called.
func sampleMemory(res *slowResult) func() {
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			res.peakHeap = max(res.peakHeap, m.HeapInuse)
			res.peakRSS = max(res.peakRSS, rss())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(stop); <-done }
}

// processCPU is the CPU time, user and system, this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rss is the process's resident set in bytes (Linux; 0 elsewhere).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// check fails tb unless every reading watcher got every widget in order
// and every stalled client was cut off short of the last widget, its
// connection closed.
func (res *slowResult) check(tb testing.TB, run slowRun) {
	tb.Helper()
	for _, err := range res.errs {
		tb.Error(err)
	}
	if res.stalledMost >= run.writes {
		tb.Errorf("a stalled client got %d events, want it cut off before all %d", res.stalledMost, run.writes)
	}
	if res.stalledClosed != run.stalled {
		tb.Errorf("%d of %d stalled clients saw their connection closed, want all", res.stalledClosed, run.stalled)
	}
}

// TestSlowWatchersAreCut: 200 watchers of one resource and 10 clients
// that never read their streams, under 300 creates. Every reading watcher
// gets every widget once and in order (watching again from its last
// resourceVersion if it is cut off, as client-go does); every stalled
// client is cut off short of the last widget, and its connection closed.
func TestSlowWatchersAreCut(t *testing.T) {
	// Widgets of about 2 KB fill a stalled client's socket buffers after a
	// few dozen events.
	run := slowRun{watchers: 200, stalled: 10, writes: 300, rate: 200, buffer: 100, writeTimeout: time.Second, notes: 2000}
	res := runSlowWatchers(t, run)
	res.check(t, run)
	t.Logf("%d watchers got all %d widgets in %v (%d watched again); %d stalled cut off, at most %d events each, %d of their connections closed; peak RSS %d MiB, heap %d MiB",
		run.watchers, run.writes, res.elapsed.Round(time.Millisecond), res.rewatches.Load(), run.stalled, res.stalledMost,
		res.stalledClosed, res.peakRSS>>20, res.peakHeap>>20)
}

// BenchmarkSlowWatchers is the full run, once per iteration:
// 2,000 watchers and 50 stalled clients, 5,000 widgets of about 450
// bytes created at 1,000 a second asked for, with the default buffer
// (1,000 events) and write timeout. The readers run in a child process:
// the peak RSS and heap it reports are this process's, which holds the
// server, its embedded etcd, the writer and the stalled clients. It also
// reports the writes a second reached, how many times reading watchers
// were cut off and watched again, and how many stalled clients' connections
// were closed.
func BenchmarkSlowWatchers(b *testing.B) {
	run := slowRun{watchers: 2000, stalled: 50, writes: 5000, rate: 1000, writeTimeout: DefaultWatchWriteTimeout, notes: 100, readersApart: true}
	for b.Loop() {
		res := runSlowWatchers(b, run)
		res.check(b, run)
		b.ReportMetric(float64(res.peakRSS)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(res.peakHeap)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(run.writes)/res.elapsed.Seconds(), "writes/s")
		deliveries := float64(run.watchers * run.writes)
		b.ReportMetric(float64(res.serverCPU.Microseconds())/deliveries, "server-process-cpu-us/delivery")
		b.ReportMetric(float64(res.readersCPU.Microseconds())/deliveries, "reader-cpu-us/delivery")
		b.ReportMetric(float64(res.rewatches.Load()), "rewatches")
		b.ReportMetric(float64(res.stalledClosed), "stalled-closed")
	}
}

// slowReadersEnv makes this test binary the reading watchers of a
// slowRun (TestMain): "URL FROM N WANT".
const slowReadersEnv = "SPECD_SLOW_READERS"

// readersApartProcess is the child process of startSlowReadersApart.
type readersApartProcess struct {
	cmd       *exec.Cmd
	out       *bufio.Scanner
	rewatches *atomic.Int64
}

// startSlowReadersApart runs startSlowReaders in a child process: this
// test binary, which prints "ready" once every watch is open, then at
// the end "rewatches N" and one line per reader that failed.
func startSlowReadersApart(tb testing.TB, url, from string, n, want int, rewatches *atomic.Int64) *readersApartProcess {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d %d", slowReadersEnv, url, from, n, want))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill() })
	out := bufio.NewScanner(stdout)
	if !out.Scan() || out.Text() != "ready" {
		tb.Fatalf("slow readers did not start: %q", out.Text())
	}
	return &readersApartProcess{cmd: cmd, out: out, rewatches: rewatches}
}

func (p *readersApartProcess) wait() []error {
	var errs []error
	for p.out.Scan() {
		if n, ok := strings.CutPrefix(p.out.Text(), "rewatches "); ok {
			v, _ := strconv.ParseInt(n, 10, 64)
			p.rewatches.Store(v)
			continue
		}
		errs = append(errs, errors.New(p.out.Text()))
	}
	if err := p.cmd.Wait(); err != nil {
		errs = append(errs, fmt.Errorf("slow readers: %w", err))
	}
	return errs
}

// runSlowReaders is the child of startSlowReadersApart.
func runSlowReaders(spec string) {
	var url, from string
	var n, want int
	if _, err := fmt.Sscan(spec, &url, &from, &n, &want); err != nil {
		fmt.Fprintf(os.Stderr, "%s=%q: %v\n", slowReadersEnv, spec, err)
		os.Exit(2)
	}
	var rewatches atomic.Int64
	r := startSlowReaders(context.Background(), url, from, n, want, &rewatches)
	fmt.Println("ready")
	errs := r.wait()
	fmt.Println("rewatches", rewatches.Load())
	for _, err := range errs {
		fmt.Println(err)
	}
}
