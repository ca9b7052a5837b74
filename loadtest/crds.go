package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/tidwall/gjson"
)

// crdGroup is the group of the crds phase's CRDs with --crd-groups one;
// with each, CRD i is in g<i>.crds.bench.specd.io.
const crdGroup = "crds.bench.specd.io"

// crdCollection is the REST path of the CRDs.
const crdCollection = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// errNotEstablished is the error key of a CRD whose watch ended before
// it was Established.
const errNotEstablished = "not-established"

// Step is what one run of --crd-step CRDs of the crds phase cost.
type Step struct {
	Done   int            // CRDs created when the step ended
	Mean   time.Duration  // mean time of the step's CRDs, create to Established
	RSS    *int64         // server RSS after the step; nil when unknown
	CPUPer *time.Duration // server CPU per CRD over the step; nil when unknown
}

// crdName is the plural of CRD i; its kind is the same, capitalised and
// singular: c00007s, C00007.
func crdName(i int) (plural, kind string) {
	return fmt.Sprintf("c%05ds", i), fmt.Sprintf("C%05d", i)
}

// crdGroupOf is the group of CRD i.
func (c Config) crdGroupOf(i int) string {
	if c.CRDGroups == "each" {
		return fmt.Sprintf("g%d.%s", i, crdGroup)
	}
	return crdGroup
}

// CRD is the crds phase's CRD i in group, as JSON: a namespaced kind
// with a status subresource and a spec of ten string fields, the size of
// a small operator's CRD.
func CRD(i int, group string) []byte {
	props := map[string]any{}
	for f := range 10 {
		props[fmt.Sprintf("field%d", f)] = map[string]any{"type": "string", "description": "a field of the benchmark's kind"}
	}
	plural, kind := crdName(i)
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": plural, "kind": kind},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
					"spec":   map[string]any{"type": "object", "properties": props},
					"status": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
				}}},
			}},
		},
	}
	b, err := json.Marshal(crd)
	if err != nil {
		panic(err) // maps of strings always encode
	}
	return b
}

// crds creates the CRDs one after another, each waited for until
// Established, and records a Step every --crd-step CRDs.
func (r *runner) crds(ctx context.Context, rec *recorder) {
	stepStart, cpuStart := 0, r.serverCPU()
	var stepTime time.Duration
	for i := range r.cfg.CRDs {
		start := time.Now()
		key, ok := r.createEstablished(ctx, i)
		if !ok {
			return
		}
		took := time.Since(start)
		rec.observe(took, key)
		stepTime += took
		if done := i + 1; done%r.cfg.CRDStep == 0 || done == r.cfg.CRDs {
			cpuEnd := r.serverCPU()
			step := Step{Done: done, Mean: stepTime / time.Duration(done-stepStart), RSS: r.rss(), CPUPer: perOp(cpuStart, cpuEnd, done-stepStart)}
			rec.addStep(step)
			fmt.Fprintf(r.progress, "bench: crds %d, mean %s, rss %s\n", done, latencyText(step.Mean), mibText(step.RSS))
			stepStart, cpuStart, stepTime = done, cpuEnd, 0
		}
	}
}

// perOp divides the CPU between two readings over n operations; nil
// when either is unknown.
func perOp(from, to *time.Duration, n int) *time.Duration {
	if from == nil || to == nil || n <= 0 {
		return nil
	}
	d := (*to - *from) / time.Duration(n)
	return &d
}

// createEstablished creates CRD i and waits until it is Established. It
// returns the operation's error key, and ok false when the run's own
// deadline cut it short.
func (r *runner) createEstablished(ctx context.Context, i int) (key string, ok bool) {
	code, body, err := r.client.do(ctx, http.MethodPost, crdCollection, nil, CRD(i, r.cfg.crdGroupOf(i)))
	if key, ok := outcome(ctx, code, err, http.StatusCreated); key != "" || !ok {
		return key, ok
	}
	name := gjson.GetBytes(body, "metadata.name").String()
	rv := gjson.GetBytes(body, "metadata.resourceVersion").String()
	established, err := r.client.watchUntil(ctx, crdCollection, url.Values{
		"watch": {"1"}, "fieldSelector": {"metadata.name=" + name}, "resourceVersion": {rv},
	}, isEstablished)
	switch {
	case ctx.Err() != nil:
		return "", false
	case err != nil:
		return errTransport, true
	case !established:
		return errNotEstablished, true
	}
	return "", true
}

// isEstablished reports whether a CRD's Established condition is True.
func isEstablished(crd []byte) bool {
	return gjson.GetBytes(crd, `status.conditions.#(type=="Established").status`).String() == "True"
}

// watchUntil watches path from query's resourceVersion until an event's
// object satisfies done, and reports whether one did before the watch
// ended.
func (c *client) watchUntil(ctx context.Context, path string, query url.Values, done func(obj []byte) bool) (bool, error) {
	resp, cancel, err := c.stream(ctx, path, query)
	if err != nil {
		return false, err
	}
	defer cancel()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("loadtest: watch %s: HTTP %d", path, resp.StatusCode)
	}
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err == io.EOF {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("loadtest: watch %s: %w", path, err)
		}
		if ev.Type != "ERROR" && done(ev.Object) {
			return true, nil
		}
	}
}

// stream sends a GET whose body the caller reads as it comes, within the
// request timeout; the caller closes the body, then calls cancel.
func (c *client) stream(ctx context.Context, path string, query url.Values) (*http.Response, context.CancelFunc, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	req, err := c.newRequest(ctx, http.MethodGet, path, query, nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return resp, cancel, nil
}
