package loadtest

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// fakeAPI is just enough of the Kubernetes REST conventions for one
// namespaced collection to test the client tool: POST 201 / 409
// AlreadyExists, GET, list with limit and continue, PUT with 409 Conflict on
// a stale resourceVersion, DELETE. It is not a model of specd's storage.
type fakeAPI struct {
	prefix        string        // collection path
	conflictEvery int           // the first PUT of every n-th object meets a concurrent write
	delay         time.Duration // added to every POST
	token         string        // when set, every request needs this bearer token

	mu       sync.Mutex
	rv       int64
	objs     map[string][]byte
	raced    map[string]bool
	requests map[string]int // by method
}

func newFakeAPI() *fakeAPI {
	return &fakeAPI{
		prefix: "/apis/bench.specd.io/v1/namespaces/bench/payloads",
		objs:   map[string][]byte{}, raced: map[string]bool{}, requests: map[string]int{},
	}
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests[r.Method]++
	f.mu.Unlock()
	if f.token != "" && r.Header.Get("Authorization") != "Bearer "+f.token {
		status(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
		return
	}
	switch {
	case r.URL.Path == f.prefix && r.Method == http.MethodPost:
		time.Sleep(f.delay)
		f.create(w, r)
	case r.URL.Path == f.prefix && r.Method == http.MethodGet:
		f.list(w, r)
	case strings.HasPrefix(r.URL.Path, f.prefix+"/"):
		f.item(w, r, strings.TrimPrefix(r.URL.Path, f.prefix+"/"))
	default:
		status(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	}
}

func status(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q,"reason":%q,"code":%d}`, msg, reason, code)
}

func reply(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(body)
}

func (f *fakeAPI) create(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	name := gjson.GetBytes(body, "metadata.name").String()
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.objs[name]; ok || name == "" {
		status(w, http.StatusConflict, "AlreadyExists", name+" already exists")
		return
	}
	f.rv++
	body, _ = sjson.SetBytes(body, "metadata.resourceVersion", strconv.FormatInt(f.rv, 10))
	f.objs[name] = body
	reply(w, http.StatusCreated, body)
}

func (f *fakeAPI) list(w http.ResponseWriter, r *http.Request) {
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	after := r.URL.Query().Get("continue")
	f.mu.Lock()
	defer f.mu.Unlock()
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range f.objs {
			if n > after && !yield(n) {
				return
			}
		}
	})
	cont := ""
	if limit > 0 && len(names) > limit {
		names, cont = names[:limit], names[limit-1]
	}
	items := make([][]byte, len(names))
	for i, n := range names {
		items[i] = f.objs[n]
	}
	out := fmt.Appendf(nil, `{"apiVersion":"bench.specd.io/v1","kind":"PayloadList","metadata":{"resourceVersion":"%d","continue":%q},"items":[%s]}`,
		f.rv, cont, slices.Concat(joinBytes(items)...))
	reply(w, http.StatusOK, out)
}

func joinBytes(items [][]byte) [][]byte {
	var out [][]byte
	for i, it := range items {
		if i > 0 {
			out = append(out, []byte(","))
		}
		out = append(out, it)
	}
	return out
}

func (f *fakeAPI) item(w http.ResponseWriter, r *http.Request, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	obj, ok := f.objs[name]
	if !ok {
		status(w, http.StatusNotFound, "NotFound", name+" not found")
		return
	}
	switch r.Method {
	case http.MethodGet:
		reply(w, http.StatusOK, obj)
	case http.MethodDelete:
		delete(f.objs, name)
		reply(w, http.StatusOK, obj)
	case http.MethodPut:
		body, _ := io.ReadAll(r.Body)
		if i, _ := strconv.Atoi(strings.TrimPrefix(name, "obj-")); f.conflictEvery > 0 && i%f.conflictEvery == 0 && !f.raced[name] {
			f.raced[name] = true // another writer got there first
			f.rv++
			obj, _ = sjson.SetBytes(obj, "metadata.resourceVersion", strconv.FormatInt(f.rv, 10))
			f.objs[name] = obj
		}
		if gjson.GetBytes(body, "metadata.resourceVersion").String() != gjson.GetBytes(obj, "metadata.resourceVersion").String() {
			status(w, http.StatusConflict, "Conflict", "the object has been modified")
			return
		}
		f.rv++
		body, _ = sjson.SetBytes(body, "metadata.resourceVersion", strconv.FormatInt(f.rv, 10))
		f.objs[name] = body
		reply(w, http.StatusOK, body)
	default:
		status(w, http.StatusMethodNotAllowed, "MethodNotAllowed", r.Method)
	}
}
