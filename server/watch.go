package server

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion"
	listvalidation "k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// DefaultMinRequestTimeout is kube-apiserver's default
// --min-request-timeout (1800 s).
const DefaultMinRequestTimeout = 30 * time.Minute

// NoMinRequestTimeout is Config.MinRequestTimeout for kube-apiserver's
// --min-request-timeout 0: a watch without a timeoutSeconds (or with 0)
// is given a timeout of 0, so it ends at once with an empty stream, as
// kube-apiserver's does (k8s.io/apiserver request.GetTimeoutForWatch
// says so; its handler bounds the watch's context by that 0).
const NoMinRequestTimeout time.Duration = -1

// DefaultWatchWriteTimeout is how long a watch's write may block on a
// client that does not read before the stream is cut off.
const DefaultWatchWriteTimeout = 30 * time.Second

// watches ends every open watch when the server shuts down:
// http.Server.Shutdown waits for handlers, and a watch never ends by
// itself.
type watches struct {
	once      sync.Once
	closeOnce sync.Once
	closing   chan struct{}
}

func (ws *watches) done() chan struct{} {
	ws.once.Do(func() { ws.closing = make(chan struct{}) })
	return ws.closing
}

// CloseWatches ends every open watch and refuses new ones: call it when
// the HTTP server shuts down (http.Server.RegisterOnShutdown).
func (s *Server) CloseWatches() {
	done := s.watches.done()
	s.watches.closeOnce.Do(func() { close(done) })
}

// watch serves ?watch=true on a collection: a chunked stream of
// {"type","object"} JSON values, one per line, or of protobuf frames for
// a client that prefers them (built-in kinds), as kube-apiserver writes.
func (s *Server) watch(w http.ResponseWriter, r *http.Request, t target) {
	enc, ok := negotiate(r, t, true)
	if !ok || enc.yaml {
		notAcceptable(w, r)
		return
	}
	q := r.URL.Query()
	req, timeout, err := watchRequest(t.Version, q, s.cfg.MinRequestTimeout)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	closing := s.watches.done()
	select {
	case <-closing:
		writeStatus(w, r, failure(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "the server is shutting down"))
		return
	default:
	}
	var table *tableBuilder
	if enc.table {
		include, err := parseIncludeObject(q.Get("includeObject"))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		table = newTableBuilder(t.Version, include, s.cfg.Now())
	}
	if timeout <= 0 {
		s.endedWatch(w, r, enc.protobuf)
		return
	}
	ctx, cancelClose := context.WithCancel(ctx)
	defer cancelClose()
	rc := http.NewResponseController(w)
	go func() {
		select {
		case <-closing:
			cancelClose()
			// A handler stuck writing to a client that does not read
			// must not hold up the shutdown either.
			_ = rc.SetWriteDeadline(time.Now())
		case <-ctx.Done():
		}
	}()

	watch, err := s.cfg.Store.Watch(ctx, t.Ref, req)
	// Priority and fairness holds a seat for a watch until it has started.
	utilflowcontrol.WatchInitialized(r.Context())
	if err != nil && !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		s.writeError(w, r, err)
		return
	}
	sw := startStream(w, rc, enc.protobuf, s.cfg.WatchWriteTimeout)
	if err != nil {
		// As kube-apiserver: a too old resourceVersion is the one ERROR
		// event of a successful stream.
		sw.status(err)
		return
	}
	defer watch.Stop()
	s.stream(ctx, sw, watch, table, enc.meta)
}

// stream copies events to the client until the watch or ctx ends.
// With meta, each object is its PartialObjectMetadata. In Table form, as
// kube-apiserver streams it, every event is a Table (a bookmark's too,
// whose row carries the bookmark's metadata), and only the first has the
// column definitions.
func (s *Server) stream(ctx context.Context, sw *streamWriter, watch *engine.Watch, table *tableBuilder, meta bool) {
	for first := true; ; first = false {
		ev, ready, err := watch.Ready(ctx)
		if err == nil && !ready {
			// Nothing more to write without waiting: what was written
			// goes out now.
			if sw.flush() != nil {
				return
			}
			ev, err = watch.Next(ctx)
		}
		if err != nil {
			if !errors.Is(err, engine.ErrWatchClosed) && ctx.Err() == nil {
				sw.status(err)
			}
			return
		}
		obj := ev.Object
		if meta {
			obj = partialObject(obj)
		}
		if table != nil {
			table.cells.now = s.cfg.Now() // ages as of this event
			if obj, err = table.event(obj, first).encode(); err != nil {
				sw.status(err)
				return
			}
		}
		if err := sw.event(ev.Type.String(), obj, false); err != nil {
			return // the client went away
		}
	}
}

// endedWatch answers a watch whose timeout is 0 (NoMinRequestTimeout):
// kube-apiserver starts it under a context already ended, and its stream
// ends before any event, so this one is an empty stream.
func (s *Server) endedWatch(w http.ResponseWriter, r *http.Request, protobuf bool) {
	utilflowcontrol.WatchInitialized(r.Context())
	startStream(w, http.NewResponseController(w), protobuf, s.cfg.WatchWriteTimeout)
}

// watchRequest reads and validates the watch parameters, as
// kube-apiserver's ListOptions validation does.
// A watch without timeoutSeconds (or 0) lasts a random time between
// minTimeout and twice it; kube-apiserver sets no upper bound on
// timeoutSeconds, and neither does specd.
func watchRequest(rv *schemas.ResourceVersion, q url.Values, minTimeout time.Duration) (engine.WatchRequest, time.Duration, error) {
	opts := internalversion.ListOptions{
		Watch:                true,
		ResourceVersion:      q.Get("resourceVersion"),
		ResourceVersionMatch: metav1.ResourceVersionMatch(q.Get("resourceVersionMatch")),
		AllowWatchBookmarks:  boolParam(q.Get("allowWatchBookmarks")),
	}
	if v := q.Get("sendInitialEvents"); v != "" {
		b := boolParam(v)
		opts.SendInitialEvents = &b
	}
	var timeout time.Duration // NoMinRequestTimeout: ends at once
	if minTimeout > 0 {
		timeout = minTimeout + rand.N(minTimeout)
	}
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return engine.WatchRequest{}, 0, badRequest("invalid timeoutSeconds %q: must be an integer", v)
		}
		switch {
		case n > 0:
			timeout = time.Duration(n) * time.Second
		case n < 0:
			// kube-apiserver's watch context then has a deadline in the
			// past: the stream ends at once, empty.
			timeout = 0
		}
	}
	if errs := listvalidation.ValidateListOptions(&opts, true); len(errs) > 0 {
		return engine.WatchRequest{}, 0, optionsInvalid("ListOptions", errs)
	}
	sel, err := engine.ParseSelector(rv, q.Get("labelSelector"), q.Get("fieldSelector"))
	if err != nil {
		return engine.WatchRequest{}, 0, err
	}
	return engine.WatchRequest{
		ResourceVersion:      opts.ResourceVersion,
		ResourceVersionMatch: string(opts.ResourceVersionMatch),
		SendInitialEvents:    opts.SendInitialEvents,
		AllowBookmarks:       opts.AllowWatchBookmarks,
		Selector:             sel,
	}, timeout, nil
}

// boolParam reads a boolean query parameter as kube-apiserver does.
func boolParam(v string) bool {
	b, _ := strconv.ParseBool(v)
	return b
}

// isWatch reports whether a GET asks for a watch.
func isWatch(q url.Values) bool {
	return boolParam(q.Get("watch"))
}

// streamWriter writes watch events, flushing when asked.
type streamWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
	pb  *protobufWatch // nil for JSON
	// writeTimeout bounds how long a write may block on a client that
	// does not read: the stream ends then, and the connection closes.
	writeTimeout time.Duration
	// deadline is the write deadline last set: it moves on when a
	// quarter of writeTimeout is left of it, not at every event.
	deadline time.Time
}

// startStream sends the headers of a watch response: JSON, or protobuf
// frames when negotiated, chunked (no Content-Length), as kube-apiserver
// answers.
func startStream(w http.ResponseWriter, rc *http.ResponseController, protobuf bool, writeTimeout time.Duration) *streamWriter {
	sw := &streamWriter{w: w, rc: rc, writeTimeout: writeTimeout}
	contentType := contentTypeJSON
	if protobuf {
		sw.pb, contentType = &protobufWatch{}, contentTypeProtobufWatch
	}
	h := w.Header()
	h["Content-Type"] = []string{contentType}
	h["Cache-Control"] = []string{"no-cache, private"}
	h["Transfer-Encoding"] = []string{"chunked"}
	sw.moveDeadline()
	w.WriteHeader(http.StatusOK)
	_ = sw.rc.Flush()
	return sw
}

// moveDeadline keeps the write deadline at least three quarters of
// writeTimeout away: a client that reads, however slowly, is never cut
// off, and one that stopped reading is, writeTimeout after its last read
// at most. The watch cache has then already dropped its watch (its buffer
// filled); this frees the handler and the events it still held.
func (sw *streamWriter) moveDeadline() {
	if sw.writeTimeout <= 0 {
		return
	}
	now := time.Now()
	if sw.deadline.Sub(now) > sw.writeTimeout-sw.writeTimeout/4 {
		return
	}
	sw.deadline = now.Add(sw.writeTimeout)
	_ = sw.rc.SetWriteDeadline(sw.deadline)
}

// event writes one event. An object that cannot be encoded ends the
// stream with an ERROR event saying why.
func (sw *streamWriter) event(typ string, obj []byte, flush bool) error {
	b, err := sw.encode(typ, obj)
	if err != nil {
		if typ != "ERROR" {
			sw.status(err)
		}
		return err
	}
	sw.moveDeadline()
	if _, err := sw.w.Write(b); err != nil {
		return err
	}
	if flush {
		return sw.flush()
	}
	return nil
}

// flush sends what the stream has written, within the write deadline.
func (sw *streamWriter) flush() error {
	sw.moveDeadline()
	return sw.rc.Flush()
}

// encode returns an event as the stream carries it: a protobuf frame, or
// {"type":T,"object":OBJ} and a newline.
func (sw *streamWriter) encode(typ string, obj []byte) ([]byte, error) {
	if sw.pb != nil {
		return sw.pb.encode(typ, obj)
	}
	b := sw.buf[:0]
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","object":`...)
	b = append(b, obj...)
	b = append(b, "}\n"...)
	sw.buf = b
	return b, nil
}

// status writes err as an ERROR event with its Status.
func (sw *streamWriter) status(err error) {
	var st metav1.Status
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		st = api.Status()
	} else {
		st = apierrors.NewInternalError(err).ErrStatus
	}
	st.Kind, st.APIVersion = "Status", "v1"
	body, merr := json.Marshal(&st)
	if merr != nil {
		return
	}
	_ = sw.event("ERROR", body, true)
}

// listResourceVersion reads resourceVersion and resourceVersionMatch of a
// list, validated as kube-apiserver validates ListOptions.
func listResourceVersion(q url.Values, req *engine.ListRequest) error {
	opts := internalversion.ListOptions{
		ResourceVersion:      q.Get("resourceVersion"),
		ResourceVersionMatch: metav1.ResourceVersionMatch(q.Get("resourceVersionMatch")),
		Continue:             q.Get("continue"),
	}
	if q.Get("sendInitialEvents") != "" {
		b := boolParam(q.Get("sendInitialEvents"))
		opts.SendInitialEvents = &b
	}
	if errs := listvalidation.ValidateListOptions(&opts, true); len(errs) > 0 {
		return optionsInvalid("ListOptions", errs)
	}
	req.ResourceVersion, req.ResourceVersionMatch = opts.ResourceVersion, string(opts.ResourceVersionMatch)
	return nil
}
