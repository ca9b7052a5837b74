package loadtest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the result of one run.
type Report struct {
	Server          string
	Collection      string
	Kind            string
	Objects         int
	Concurrency     int
	ObjectBytes     int // JSON size of one created object
	PID             int // server process; 0 when unknown
	Started         time.Time
	Phases          []PhaseResult
	RSSGrowthPer10k *int64 // server RSS growth in bytes per 10,000 created objects
	CRDs            int    // the crds phase's CRDs; 0 without that phase
	CRDGroups       string // "one" or "each", as --crd-groups
	objectPhases    bool   // a phase besides crds uses the collection
	Interrupted     bool   // the run deadline or ctx ended the run early
}

// PhaseResult measures one phase.
type PhaseResult struct {
	Name        string
	Ops         int            // operations completed (including failed ones)
	Errors      map[string]int // by HTTP status code, "transport", "count-mismatch", "bad-response"
	Retries     int            // update: PUTs retried after 409 Conflict
	Items       int            // list, list-paged: items returned over all walks
	Duration    time.Duration
	Latency     Latency
	RSSBefore   *int64 // server RSS in bytes; nil when unknown
	RSSAfter    *int64
	CPUPerOp    *time.Duration // server CPU (user and system) per operation; nil when unknown
	Steps       []Step         // crds: one per --crd-step CRDs
	Interrupted bool
}

// ErrorCount is the number of errors of every kind.
func (p PhaseResult) ErrorCount() int {
	n := 0
	for _, v := range p.Errors {
		n += v
	}
	return n
}

// OpsPerSec is the throughput of the phase.
func (p PhaseResult) OpsPerSec() float64 {
	if p.Duration <= 0 {
		return 0
	}
	return float64(p.Ops) / p.Duration.Seconds()
}

// Failed reports whether any operation failed or the run ended early.
func (r *Report) Failed() bool {
	for _, p := range r.Phases {
		if p.ErrorCount() > 0 {
			return true
		}
	}
	return r.Interrupted
}

// jsonReport is the --output json shape: durations in milliseconds, sizes
// in bytes, unknown values null.
type jsonReport struct {
	Server               string      `json:"server"`
	Collection           string      `json:"collection"`
	Kind                 string      `json:"kind"`
	Objects              int         `json:"objects"`
	Concurrency          int         `json:"concurrency"`
	ObjectBytes          int         `json:"objectBytes"`
	ServerPID            *int        `json:"serverPID"`
	Started              time.Time   `json:"started"`
	RSSGrowthPer10kBytes *int64      `json:"rssGrowthPer10kObjectsBytes"`
	CRDs                 int         `json:"crds,omitempty"`
	CRDGroups            string      `json:"crdGroups,omitempty"`
	Interrupted          bool        `json:"interrupted"`
	Phases               []jsonPhase `json:"phases"`
}

type jsonPhase struct {
	Name           string         `json:"name"`
	Ops            int            `json:"ops"`
	ErrorCount     int            `json:"errorCount"`
	Errors         map[string]int `json:"errors"`
	Retries        int            `json:"retries"`
	Items          int            `json:"items"`
	DurationMs     float64        `json:"durationMs"`
	OpsPerSec      float64        `json:"opsPerSec"`
	P50Ms          float64        `json:"p50Ms"`
	P90Ms          float64        `json:"p90Ms"`
	P99Ms          float64        `json:"p99Ms"`
	MaxMs          float64        `json:"maxMs"`
	RSSBeforeBytes *int64         `json:"rssBeforeBytes"`
	RSSAfterBytes  *int64         `json:"rssAfterBytes"`
	CPUPerOpMs     *float64       `json:"cpuPerOpMs"`
	Steps          []jsonStep     `json:"steps,omitempty"`
	Interrupted    bool           `json:"interrupted"`
}

// jsonStep is a Step: after done CRDs, the step's mean time, the server's
// RSS and its CPU per CRD over the step.
type jsonStep struct {
	Done       int      `json:"done"`
	MeanMs     float64  `json:"meanMs"`
	RSSBytes   *int64   `json:"rssBytes"`
	CPUPerOpMs *float64 `json:"cpuPerOpMs"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// msOf is *d in milliseconds; nil when d is.
func msOf(d *time.Duration) *float64 {
	if d == nil {
		return nil
	}
	v := ms(*d)
	return &v
}

func writeJSON(w io.Writer, r *Report) error {
	out := jsonReport{
		Server: r.Server, Collection: r.Collection, Kind: r.Kind, Objects: r.Objects,
		Concurrency: r.Concurrency, ObjectBytes: r.ObjectBytes, Started: r.Started,
		RSSGrowthPer10kBytes: r.RSSGrowthPer10k, CRDs: r.CRDs, CRDGroups: r.CRDGroups, Interrupted: r.Interrupted,
		Phases: []jsonPhase{},
	}
	if r.PID > 0 {
		out.ServerPID = &r.PID
	}
	for _, p := range r.Phases {
		out.Phases = append(out.Phases, jsonPhase{
			Name: p.Name, Ops: p.Ops, ErrorCount: p.ErrorCount(), Errors: p.Errors,
			Retries: p.Retries, Items: p.Items,
			DurationMs: ms(p.Duration), OpsPerSec: p.OpsPerSec(),
			P50Ms: ms(p.Latency.P50), P90Ms: ms(p.Latency.P90), P99Ms: ms(p.Latency.P99), MaxMs: ms(p.Latency.Max),
			RSSBeforeBytes: p.RSSBefore, RSSAfterBytes: p.RSSAfter, CPUPerOpMs: msOf(p.CPUPerOp),
			Steps: jsonSteps(p.Steps), Interrupted: p.Interrupted,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func jsonSteps(steps []Step) []jsonStep {
	var out []jsonStep
	for _, s := range steps {
		out = append(out, jsonStep{Done: s.Done, MeanMs: ms(s.Mean), RSSBytes: s.RSS, CPUPerOpMs: msOf(s.CPUPer)})
	}
	return out
}

func writeText(w io.Writer, r *Report) error {
	pid := "unknown"
	if r.PID > 0 {
		pid = fmt.Sprint(r.PID)
	}
	fmt.Fprintf(w, "server      %s (pid %s)\n", r.Server, pid)
	if r.objectPhases {
		fmt.Fprintf(w, "collection  %s (%s)\n", r.Collection, r.Kind)
		fmt.Fprintf(w, "objects     %d of %d bytes, concurrency %d\n", r.Objects, r.ObjectBytes, r.Concurrency)
	}
	if r.CRDs > 0 {
		fmt.Fprintf(w, "crds        %d, one after another, %s\n", r.CRDs, crdGroupsText(r.CRDGroups))
	}
	fmt.Fprintln(w)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tOPS\tERRORS\tDURATION\tOPS/S\tP50\tP90\tP99\tMAX\tRSS BEFORE\tRSS AFTER\tSERVER CPU/OP")
	for _, p := range r.Phases {
		name := p.Name
		if p.Interrupted {
			name += "*"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			name, p.Ops, errorsText(p.Errors), p.Duration.Round(time.Millisecond), p.OpsPerSec(),
			latencyText(p.Latency.P50), latencyText(p.Latency.P90), latencyText(p.Latency.P99), latencyText(p.Latency.Max),
			mibText(p.RSSBefore), mibText(p.RSSAfter), cpuText(p.CPUPerOp))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, p := range r.Phases {
		switch {
		case p.Name == PhaseUpdate:
			fmt.Fprintf(w, "update: %d retries after 409 Conflict\n", p.Retries)
		case p.Name == PhaseList || p.Name == PhaseListPaged:
			fmt.Fprintf(w, "%s: %d items in total\n", p.Name, p.Items)
		}
	}
	for _, p := range r.Phases {
		if err := writeSteps(w, p.Steps); err != nil {
			return err
		}
	}
	if r.RSSGrowthPer10k != nil {
		fmt.Fprintf(w, "server RSS growth after create: %s per 10,000 objects\n", mibText(r.RSSGrowthPer10k))
	}
	if r.Interrupted {
		fmt.Fprintln(w, "* the run deadline ended this phase early")
	}
	return nil
}

func crdGroupsText(groups string) string {
	if groups == "each" {
		return "each in a group of its own (g<i>." + crdGroup + ")"
	}
	return "all in " + crdGroup
}

// writeSteps is the crds phase's table: a row per step.
func writeSteps(w io.Writer, steps []Step) error {
	if len(steps) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\ncrds, create to Established:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CRDS\tMEAN\tRSS\tSERVER CPU/CRD")
	for _, s := range steps {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", s.Done, latencyText(s.Mean), mibText(s.RSS), cpuText(s.CPUPer))
	}
	return tw.Flush()
}

// errorsText is "0" or the errors by key, "409:3 transport:1".
func errorsText(errs map[string]int) string {
	if len(errs) == 0 {
		return "0"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		parts = append(parts, fmt.Sprintf("%s:%d", k, errs[k]))
	}
	return strings.Join(parts, ",")
}

func latencyText(d time.Duration) string { return fmt.Sprintf("%.2fms", ms(d)) }

// cpuText is a CPU time per operation, in microseconds below 10 ms.
func cpuText(d *time.Duration) string {
	switch {
	case d == nil:
		return "unknown"
	case *d < 10*time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(*d)/float64(time.Microsecond))
	}
	return latencyText(*d)
}

func mibText(b *int64) string {
	if b == nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1fMiB", float64(*b)/(1<<20))
}
