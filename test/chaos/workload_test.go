package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const thingsPath = "/apis/things.example.com/v1alpha1/namespaces/chaos/things"

// figures counts, per client and phase, the requests that succeeded and
// the errors seen, with a few error messages for the log, and the
// slowest of a writer's requests: a request that meets a member's death
// is retried inside specd, and waits.
type figures struct {
	phase atomic.Pointer[string]

	mu      sync.Mutex
	phases  []string
	ok      map[string]map[string]int
	errs    map[string]map[string]int
	slowest map[string]map[string]time.Duration
	samples map[string][]string // phase: distinct error messages
}

func newFigures() *figures {
	return &figures{ok: map[string]map[string]int{}, errs: map[string]map[string]int{},
		slowest: map[string]map[string]time.Duration{}, samples: map[string][]string{}}
}

// took records how long one of client's requests took.
func (f *figures) took(client string, d time.Duration) {
	phase := *f.phase.Load()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.slowest[client] == nil {
		f.slowest[client] = map[string]time.Duration{}
	}
	f.slowest[client][phase] = max(f.slowest[client][phase], d)
}

func (f *figures) enter(phase string) {
	f.mu.Lock()
	f.phases = append(f.phases, phase)
	f.mu.Unlock()
	f.phase.Store(&phase)
}

func (f *figures) count(client string, err error) {
	phase := *f.phase.Load()
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.ok
	if err != nil {
		m = f.errs
		if msg := err.Error(); len(f.samples[phase]) < 8 && !containsPrefix(f.samples[phase], client+": "+msg) {
			f.samples[phase] = append(f.samples[phase], client+": "+msg)
		}
	}
	if m[client] == nil {
		m[client] = map[string]int{}
	}
	m[client][phase]++
}

func containsPrefix(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// table is the figures as a Markdown table: errors/requests per client
// and phase, and for a writer its slowest request.
func (f *figures) table() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var clients []string
	for c := range f.ok {
		clients = append(clients, c)
	}
	for c := range f.errs {
		if f.ok[c] == nil {
			clients = append(clients, c)
		}
	}
	sort.Strings(clients)
	var b strings.Builder
	b.WriteString("| client | " + strings.Join(f.phases, " | ") + " |\n|---" + strings.Repeat("|---", len(f.phases)) + "|\n")
	for _, c := range clients {
		b.WriteString("| " + c)
		for _, p := range f.phases {
			fmt.Fprintf(&b, " | %d/%d", f.errs[c][p], f.errs[c][p]+f.ok[c][p])
			if d, ok := f.slowest[c][p]; ok {
				fmt.Fprintf(&b, ", %.2f s", d.Seconds())
			}
		}
		b.WriteString(" |\n")
	}
	for _, p := range f.phases {
		for _, s := range f.samples[p] {
			fmt.Fprintf(&b, "\n%s: %s", p, s)
		}
	}
	return b.String()
}

// ack is a write a writer's client was told succeeded.
type ack struct {
	seq     int
	name    string
	uid     string
	updated bool // the update that follows the create was acknowledged
}

// writer creates Things with generateName through one replica, one at a
// time, and updates each once; it keeps what was acknowledged.
type writer struct {
	name    string
	replica *replica
	figures *figures
	client  *http.Client
	acked   []ack
}

func (w *writer) run(ctx context.Context) {
	for seq := 1; ctx.Err() == nil; seq++ {
		a, ok := w.create(seq)
		if ok {
			a.updated = w.update(a)
			w.acked = append(w.acked, a)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (w *writer) create(seq int) (ack, bool) {
	body := fmt.Sprintf(`{"apiVersion":"things.example.com/v1alpha1","kind":"Thing","metadata":{"generateName":"%s-","labels":{"writer":%q,"seq":"%d"}},"spec":{"label":"created"}}`,
		w.name, w.name, seq)
	resp, ok := w.request("create", http.MethodPost, thingsPath, []byte(body), http.StatusCreated)
	if !ok {
		return ack{}, false
	}
	var obj thing
	if err := json.Unmarshal(resp, &obj); err != nil {
		w.figures.count(w.name, err)
		return ack{}, false
	}
	return ack{seq: seq, name: obj.Metadata.Name, uid: obj.Metadata.UID, updated: false}, true
}

// update sets the label of a's object to "updated", conditional on the
// resourceVersion the create answered.
func (w *writer) update(a ack) bool {
	cur, ok := w.request("get", http.MethodGet, thingsPath+"/"+a.name, nil, http.StatusOK)
	if !ok {
		return false
	}
	body := strings.Replace(string(cur), `"label":"created"`, `"label":"updated"`, 1)
	_, ok = w.request("update", http.MethodPut, thingsPath+"/"+a.name, []byte(body), http.StatusOK)
	return ok
}

// request sends one request through the writer's replica and counts it,
// with how long it took; ok is false unless it got the status wanted.
func (w *writer) request(what, method, path string, body []byte, want int) ([]byte, bool) {
	start := time.Now()
	code, resp, err := w.replica.do(w.client, method, path, body)
	w.figures.took(w.name, time.Since(start))
	if err = answer(code, want, resp, err); err != nil {
		w.figures.count(w.name, fmt.Errorf("%s: %w", what, err))
		return nil, false
	}
	w.figures.count(w.name, nil)
	return resp, true
}

// answer is nil when the request got the status it wanted, else an error
// that says what it got.
func answer(code, want int, body []byte, err error) error {
	switch {
	case err != nil:
		return err
	case code != want:
		var st struct{ Message string }
		_ = json.Unmarshal(body, &st)
		return fmt.Errorf("%d %s", code, st.Message)
	}
	return nil
}

// thing is the part of a Thing the checks read.
type thing struct {
	Metadata struct {
		Name            string            `json:"name"`
		UID             string            `json:"uid"`
		ResourceVersion string            `json:"resourceVersion"`
		Labels          map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Label string `json:"label"`
	} `json:"spec"`
}

// event is one watch event, as a watcher saw it or as etcd's history
// has it.
type event struct {
	Type string
	Name string
	RV   string
}

func (e event) String() string { return e.Type + " " + e.Name + "@" + e.RV }

// watcher watches the Things from a resourceVersion on, through its
// replicas in turn: when a watch ends it watches again, through the next
// replica, from the last resourceVersion it saw.
type watcher struct {
	name     string
	replicas []*replica
	figures  *figures
	start    string // the resourceVersion it watches from

	mu     sync.Mutex
	events []event
	last   string
	gone   []string // the ERROR events it got (a 410 is a gap)
}

func (w *watcher) run(ctx context.Context) {
	client := &http.Client{}
	w.last = w.start
	for i := 0; ctx.Err() == nil; i++ {
		r := w.replicas[i%len(w.replicas)]
		err := w.watch(ctx, client, r)
		if ctx.Err() != nil {
			return
		}
		w.figures.count(w.name, fmt.Errorf("watch through %s ended: %w", r.name, err))
		if w.broken() {
			return // a gap: the check reports it
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// watch streams one watch and records its events; it returns why it
// ended.
func (w *watcher) watch(ctx context.Context, client *http.Client, r *replica) error {
	w.mu.Lock()
	from := w.last
	w.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url()+thingsPath+"?watch=1&resourceVersion="+from, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s", resp.Status)
	}
	dec := json.NewDecoder(resp.Body)
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			return err
		}
		if ev.Type == "ERROR" {
			w.mu.Lock()
			w.gone = append(w.gone, string(ev.Object))
			w.mu.Unlock()
			return fmt.Errorf("ERROR event: %s", ev.Object)
		}
		var obj thing
		if err := json.Unmarshal(ev.Object, &obj); err != nil {
			return err
		}
		w.mu.Lock()
		w.events = append(w.events, event{Type: ev.Type, Name: obj.Metadata.Name, RV: obj.Metadata.ResourceVersion})
		w.last = obj.Metadata.ResourceVersion
		w.mu.Unlock()
		w.figures.count(w.name, nil)
	}
}

func (w *watcher) seen() ([]event, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]event(nil), w.events...), w.last
}

func (w *watcher) broken() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.gone) > 0
}
