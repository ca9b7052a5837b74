package loadtest

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// phaseFunc runs one phase, recording every operation in rec.
type phaseFunc func(ctx context.Context, rec *recorder)

// runner holds what the phases of one run share.
type runner struct {
	cfg      Config
	client   *client
	gen      generator
	expected int // objects the collection should hold now
	salt     int // makes each run's updates real writes, not no-ops
	pid      int // server process, for the crds phase's steps; 0 when unknown
	progress io.Writer
}

func (r *runner) phase(name string) phaseFunc {
	return map[string]phaseFunc{
		PhaseCreate:    r.create,
		PhaseGet:       r.get,
		PhaseList:      r.list,
		PhaseListPaged: r.listPaged,
		PhaseListCache: r.listCache,
		PhaseUpdate:    r.update,
		PhaseDelete:    r.delete,
		PhaseCRDs:      r.crds,
	}[name]
}

// outcome is the error key of a request: "" when code is one of want,
// the status code otherwise, errTransport when there was no response.
// ok is false when the run's own deadline cut the request short; such a
// request is not recorded.
func outcome(ctx context.Context, code int, err error, want ...int) (key string, ok bool) {
	if err != nil {
		if ctx.Err() != nil {
			return "", false
		}
		return errTransport, true
	}
	for _, w := range want {
		if code == w {
			return "", true
		}
	}
	return statusKey(code), true
}

// timed runs one request and records it unless the run was cut short.
func timed(ctx context.Context, rec *recorder, req func() (int, []byte, error), want ...int) (int, []byte, bool) {
	start := time.Now()
	code, body, err := req()
	key, ok := outcome(ctx, code, err, want...)
	if ok {
		rec.observe(time.Since(start), key)
	}
	return code, body, ok && key == ""
}

func (r *runner) create(ctx context.Context, rec *recorder) {
	runPool(ctx, r.cfg.Objects, r.cfg.Concurrency, func(ctx context.Context, i int) {
		body := r.gen.Object(i)
		timed(ctx, rec, func() (int, []byte, error) {
			return r.client.do(ctx, http.MethodPost, r.client.collection, nil, body)
		}, http.StatusCreated, http.StatusOK, http.StatusAccepted)
	})
	r.expected = r.cfg.Objects
}

func (r *runner) get(ctx context.Context, rec *recorder) {
	runPool(ctx, r.cfg.Objects, r.cfg.Concurrency, func(ctx context.Context, i int) {
		timed(ctx, rec, func() (int, []byte, error) {
			return r.client.do(ctx, http.MethodGet, r.client.itemPath(objectName(i)), nil, nil)
		}, http.StatusOK)
	})
}

// list reads the whole collection in one request, ListRepeat times.
func (r *runner) list(ctx context.Context, rec *recorder) { r.fullList(ctx, rec, nil) }

// listCache is list with resourceVersion=0 (from a watch cache).
func (r *runner) listCache(ctx context.Context, rec *recorder) {
	r.fullList(ctx, rec, url.Values{"resourceVersion": {"0"}})
}

func (r *runner) fullList(ctx context.Context, rec *recorder, query url.Values) {
	for range r.cfg.ListRepeat {
		_, body, ok := timed(ctx, rec, func() (int, []byte, error) {
			return r.client.do(ctx, http.MethodGet, r.client.collection, query, nil)
		}, http.StatusOK)
		if !ok {
			continue
		}
		n, valid := r.listItems(body)
		if !valid {
			rec.fail(errBadResponse)
			continue
		}
		rec.addItems(n)
		if n != r.expected {
			rec.fail(errCountMismatch)
		}
	}
}

// listPaged walks the collection with limit and continue, ListRepeat times,
// and checks that each complete walk saw every object.
func (r *runner) listPaged(ctx context.Context, rec *recorder) {
	for range r.cfg.ListRepeat {
		total, complete := r.walk(ctx, rec)
		rec.addItems(total)
		if complete && total != r.expected {
			rec.fail(errCountMismatch)
		}
	}
}

// walk pages through the collection once; complete is false when a page
// failed or the run ended first.
func (r *runner) walk(ctx context.Context, rec *recorder) (total int, complete bool) {
	maxPages := 2*(r.expected/r.cfg.PageSize+1) + 100 // a server that never ends the walk
	cont := ""
	for pages := 0; ctx.Err() == nil; pages++ {
		if pages == maxPages {
			rec.fail(errBadResponse)
			return total, false
		}
		q := url.Values{"limit": {strconv.Itoa(r.cfg.PageSize)}}
		if cont != "" {
			q.Set("continue", cont)
		}
		_, body, ok := timed(ctx, rec, func() (int, []byte, error) {
			return r.client.do(ctx, http.MethodGet, r.client.collection, q, nil)
		}, http.StatusOK)
		if !ok {
			return total, false
		}
		n, valid := r.listItems(body)
		if !valid || n > r.cfg.PageSize {
			rec.fail(errBadResponse)
			return total, false
		}
		total += n
		if cont = gjson.GetBytes(body, "metadata.continue").String(); cont == "" {
			return total, true
		}
	}
	return total, false
}

// listItems returns the number of items of a <Kind>List body.
func (r *runner) listItems(body []byte) (int, bool) {
	res := gjson.GetManyBytes(body, "kind", "items")
	if res[0].String() != r.cfg.Kind+"List" || !res[1].IsArray() {
		return 0, false
	}
	return int(gjson.GetBytes(body, "items.#").Int()), true
}

// update is GET then PUT of the object with its resourceVersion and a new
// value of f00, retrying from the GET on 409 Conflict. One operation's
// latency covers every request it made.
func (r *runner) update(ctx context.Context, rec *recorder) {
	runPool(ctx, r.cfg.Objects, r.cfg.Concurrency, func(ctx context.Context, i int) {
		path := r.client.itemPath(objectName(i))
		start := time.Now()
		key, ok := r.updateOnce(ctx, rec, path, i)
		if ok {
			rec.observe(time.Since(start), key)
		}
	})
}

func (r *runner) updateOnce(ctx context.Context, rec *recorder, path string, i int) (string, bool) {
	for attempt := 0; ; attempt++ {
		code, body, err := r.client.do(ctx, http.MethodGet, path, nil, nil)
		if key, ok := outcome(ctx, code, err, http.StatusOK); key != "" || !ok {
			return key, ok
		}
		if !gjson.GetBytes(body, "metadata.resourceVersion").Exists() {
			return errBadResponse, true
		}
		body, err = sjson.SetBytes(body, "spec."+fieldName(0), r.gen.value(i, 0, r.salt+attempt+1))
		if err != nil {
			return errBadResponse, true
		}
		code, _, err = r.client.do(ctx, http.MethodPut, path, nil, body)
		if code == http.StatusConflict && err == nil && attempt < r.cfg.MaxRetries {
			rec.addRetries(1)
			continue
		}
		return outcome(ctx, code, err, http.StatusOK)
	}
}

func (r *runner) delete(ctx context.Context, rec *recorder) {
	var gone atomic.Int64
	runPool(ctx, r.cfg.Objects, r.cfg.Concurrency, func(ctx context.Context, i int) {
		code, _, _ := timed(ctx, rec, func() (int, []byte, error) {
			return r.client.do(ctx, http.MethodDelete, r.client.itemPath(objectName(i)), nil, nil)
		}, http.StatusOK, http.StatusAccepted)
		if code == http.StatusOK || code == http.StatusAccepted || code == http.StatusNotFound {
			gone.Add(1)
		}
	})
	r.expected = max(r.expected-int(gone.Load()), 0)
}
