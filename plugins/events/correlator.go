package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/lru"
)

// client-go's defaults for its legacy recorder (tools/record
// events_cache.go), so that specd's plugins spam no more and no less than
// a controller does.
const (
	cacheSize          = 4096
	aggregateMaxEvents = 10
	aggregateInterval  = 10 * time.Minute
	spamBurst          = 25
	spamQPS            = 1.0 / 300
	combinedPrefix     = "(combined from similar events): "
)

// Correlator decides, for each new event, whether it is a new Event, the
// next of a series (a patch of an existing one) or spam. It is safe for
// concurrent use.
type Correlator struct {
	mu         sync.Mutex
	aggregates *lru.Cache // aggregateKey -> *aggregate
	series     *lru.Cache // eventKey or aggregateKey -> seen
	spam       *lru.Cache // spamKey -> *rate.Limiter
}

// Correlated is what to do with one event.
type Correlated struct {
	// Event is the Event to write: a new one when Patch is nil, else the
	// next of a series, named as the first.
	Event *corev1.Event
	// Patch is the merge patch of the existing Event (count,
	// lastTimestamp and message).
	Patch []byte
	// Skip drops the event: its source said too much about the object.
	Skip bool
}

// aggregate is what the Correlator knows of one group of similar events.
type aggregate struct {
	messages map[string]struct{}
	last     time.Time
}

// seen is the last Event written of one series.
type seen struct {
	count    int32
	first    metav1.Time
	name, rv string
}

// NewCorrelator is a Correlator with client-go's defaults.
func NewCorrelator() *Correlator {
	return &Correlator{aggregates: lru.New(cacheSize), series: lru.New(cacheSize), spam: lru.New(cacheSize)}
}

// Correlate decides about ev, made at now with count 1 and both
// timestamps now; it does not change ev.
func (c *Correlator) Correlate(ev *corev1.Event, now time.Time) (Correlated, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out, key := c.aggregate(ev, now)
	out, patch, err := c.observe(out, key)
	if c.isSpam(out, now) {
		return Correlated{Skip: true}, nil
	}
	return Correlated{Event: out, Patch: patch}, err
}

// UpdateState remembers ev as the server stored it, so that the next of
// its series patches the right object.
func (c *Correlator) UpdateState(ev *corev1.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remember(eventKey(ev), ev)
}

func (c *Correlator) remember(key string, ev *corev1.Event) {
	c.series.Add(key, seen{count: ev.Count, first: ev.FirstTimestamp, name: ev.Name, rv: ev.ResourceVersion})
}

// aggregate returns ev, or a combined event once aggregateMaxEvents
// messages of ev's group were seen within aggregateInterval, and the key
// of its series.
func (c *Correlator) aggregate(ev *corev1.Event, now time.Time) (*corev1.Event, string) {
	key := aggregateKey(ev)
	var agg *aggregate
	if v, ok := c.aggregates.Get(key); ok {
		agg = v.(*aggregate)
	}
	if agg == nil || now.Sub(agg.last) > aggregateInterval {
		agg = &aggregate{messages: map[string]struct{}{}}
	}
	agg.messages[ev.Message] = struct{}{}
	agg.last = now
	c.aggregates.Add(key, agg)
	if len(agg.messages) < aggregateMaxEvents {
		return ev, eventKey(ev)
	}
	for m := range agg.messages { // keep the set at its bound, as client-go does
		delete(agg.messages, m)
		break
	}
	combined := newEvent(ev.InvolvedObject, ev.Type, ev.Reason, combinedPrefix+ev.Message, now)
	combined.Source = ev.Source
	combined.ReportingController, combined.ReportingInstance = ev.ReportingController, ev.ReportingInstance
	return combined, key
}

// observe makes ev the next of its series if the series was seen, with
// the merge patch that says so.
func (c *Correlator) observe(ev *corev1.Event, key string) (*corev1.Event, []byte, error) {
	out := *ev
	var patch []byte
	var err error
	if v, ok := c.series.Get(key); ok && v.(seen).count > 0 {
		last := v.(seen)
		out.Name, out.ResourceVersion, out.FirstTimestamp = last.name, last.rv, last.first
		out.Count = last.count + 1
		patch, err = seriesPatch(&out)
	}
	c.remember(key, &out)
	return &out, patch, err
}

// seriesPatch is what changes from one Event of a series to the next:
// client-go sends the same fields as a strategic merge patch, which for
// these scalar fields is this merge patch.
func seriesPatch(ev *corev1.Event) ([]byte, error) {
	p, err := json.Marshal(struct {
		Count         int32       `json:"count"`
		LastTimestamp metav1.Time `json:"lastTimestamp"`
		Message       string      `json:"message"`
	}{ev.Count, ev.LastTimestamp, ev.Message})
	if err != nil {
		return nil, fmt.Errorf("events: series patch: %w", err)
	}
	return p, nil
}

// isSpam takes a token from the bucket of ev's source and object.
func (c *Correlator) isSpam(ev *corev1.Event, now time.Time) bool {
	key := spamKey(ev)
	lim, _ := c.spam.Get(key)
	if lim == nil {
		lim = rate.NewLimiter(rate.Limit(spamQPS), spamBurst)
		c.spam.Add(key, lim)
	}
	return !lim.(*rate.Limiter).AllowN(now, 1)
}

// The keys are client-go's, with a separator that names cannot hold.

func eventKey(ev *corev1.Event) string {
	o := ev.InvolvedObject
	return join(ev.Source.Component, ev.Source.Host, o.Kind, o.Namespace, o.Name, o.FieldPath, string(o.UID), o.APIVersion,
		ev.Type, ev.Reason, ev.Message)
}

func spamKey(ev *corev1.Event) string {
	o := ev.InvolvedObject
	return join(ev.Source.Component, ev.Source.Host, o.Kind, o.Namespace, o.Name, string(o.UID), o.APIVersion, ev.Type)
}

func aggregateKey(ev *corev1.Event) string {
	o := ev.InvolvedObject
	return join(ev.Source.Component, ev.Source.Host, o.Kind, o.Namespace, o.Name, string(o.UID), o.APIVersion,
		ev.Type, ev.Reason, ev.ReportingController, ev.ReportingInstance)
}

func join(parts ...string) string { return strings.Join(parts, "\x00") }
