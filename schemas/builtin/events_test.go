package builtin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/check"
	"github.com/specd-io/specd/converters"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

func eventsSet(t *testing.T) (*schemas.Registry, *converters.Set) {
	t.Helper()
	reg, err := schemas.LoadBuiltin(builtin.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	set, err := converters.NewSet(reg, converters.DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	return reg, set
}

// TestEventsK8sIOEvents: events.k8s.io/v1 events are the core events'
// storage, with kube's discovery names.
func TestEventsK8sIOEvents(t *testing.T) {
	reg, _ := eventsSet(t)
	rv := reg.Lookup("events.k8s.io", "v1", "events")
	if rv == nil {
		t.Fatal("events.k8s.io/v1 events is not served")
	}
	res := rv.Resource
	core := reg.Resource("events")
	if res.StoredWith != core || res.StorageAPIVersion() != "v1" || rv.Storage {
		t.Errorf("stored with %v in %s (storage %v), want the core events in v1", res.StoredWith, res.StorageAPIVersion(), rv.Storage)
	}
	if res.Kind != "Event" || res.Singular != "event" || res.Scope != schemas.Namespaced || !slices.Equal(res.ShortNames, []string{"ev"}) {
		t.Errorf("got %s %s %s %v, want kube's Event event Namespaced [ev]", res.Kind, res.Singular, res.Scope, res.ShortNames)
	}
}

// kubeCore is a core/v1 Event with every field set, as k8s.io/api
// marshals it.
func kubeCore() *corev1.Event {
	at := metav1.NewTime(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))
	micro := metav1.NewMicroTime(time.Date(2026, 11, 21, 10, 0, 1, 123456000, time.UTC))
	return &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Name: "w1.1875", Namespace: "default", Labels: map[string]string{"a": "b"}},
		InvolvedObject: corev1.ObjectReference{Kind: "Widget", Namespace: "default", Name: "w1", UID: "u1", APIVersion: "shop.example.com/v1", ResourceVersion: "7", FieldPath: "spec"},
		Reason:         "Scaled", Message: "scaled to 5",
		Source:         corev1.EventSource{Component: "fleet-controller", Host: "node-1"},
		FirstTimestamp: at, LastTimestamp: at, Count: 3, Type: "Normal", EventTime: micro,
		Series:              &corev1.EventSeries{Count: 2, LastObservedTime: micro},
		Action:              "Scale",
		Related:             &corev1.ObjectReference{Kind: "Depot", Name: "d1"},
		ReportingController: "fleet-controller", ReportingInstance: "fleet-controller-1",
	}
}

// kubeEvents is kubeCore as kube-apiserver serves it in events.k8s.io/v1
// (its conversion, pkg/apis/events/v1).
func kubeEvents(c *corev1.Event) *eventsv1.Event {
	return &eventsv1.Event{
		TypeMeta: metav1.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}, ObjectMeta: c.ObjectMeta,
		EventTime: c.EventTime, Series: &eventsv1.EventSeries{Count: c.Series.Count, LastObservedTime: c.Series.LastObservedTime},
		ReportingController: c.ReportingController, ReportingInstance: c.ReportingInstance,
		Action: c.Action, Reason: c.Reason, Regarding: c.InvolvedObject, Related: c.Related, Note: c.Message, Type: c.Type,
		DeprecatedSource: c.Source, DeprecatedFirstTimestamp: c.FirstTimestamp, DeprecatedLastTimestamp: c.LastTimestamp,
		DeprecatedCount: c.Count,
	}
}

// TestEventConversionIsKubes converts k8s.io/api objects with specd's
// rules both ways and compares the results with kube's conversion.
func TestEventConversionIsKubes(t *testing.T) {
	_, set := eventsSet(t)
	core := kubeCore()
	in, err := json.Marshal(core)
	if err != nil {
		t.Fatal(err)
	}
	out, err := set.Convert(in, "events.k8s.io/v1")
	if err != nil {
		t.Fatal(err)
	}
	var got eventsv1.Event
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if want := kubeEvents(core); !equality.Semantic.DeepEqual(&got, want) {
		t.Errorf("core -> events.k8s.io:\n got %+v\nwant %+v", got, *want)
	}
	if _, bk, _ := converters.SplitBookkeeping(out); bk != "" {
		t.Errorf("bookkeeping %s: events.k8s.io/v1 holds every core field", bk)
	}
	in, err = json.Marshal(kubeEvents(core))
	if err != nil {
		t.Fatal(err)
	}
	if out, err = set.Convert(in, "v1"); err != nil {
		t.Fatal(err)
	}
	var back corev1.Event
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(&back, core) {
		t.Errorf("events.k8s.io -> core:\n got %+v\nwant %+v", back, *core)
	}
}

// TestEventRoundTrip is specd check's proof on the built-in events:
// random valid objects of both versions, through the rules and back.
func TestEventRoundTrip(t *testing.T) {
	reg, set := eventsSet(t)
	sub := schemas.NewRegistry([]*schemas.Group{reg.Group(""), reg.Group("events.k8s.io")})
	var rep check.Report
	check.Fuzz{Seed: 1, Rounds: 300, RoundTrip: set.RoundTrip}.Run(context.Background(), sub, &rep)
	for _, f := range rep.Findings {
		if strings.Contains(f.File, "events") || strings.Contains(f.Message, "Event") || f.Severity == check.Error {
			t.Errorf("%+v", f)
		}
	}
}

// TestConversionDocRules: docs/conversion.md shows the rules of the
// built-in file.
func TestConversionDocRules(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "conversion.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "\n## A kind stored with another resource\n")
	_, block, _ := strings.Cut(section, "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	shown, err := yaml.YAMLToJSON([]byte(block))
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := eventsSet(t)
	want, _ := json.Marshal(reg.Lookup("events.k8s.io", "v1", "events").ConversionRules)
	if got := gjson.GetBytes(shown, "x-specd-resource.conversion.rules").Raw; got != string(want) {
		t.Errorf("docs/conversion.md shows rules %s, the built-in file has %s", got, want)
	}
}
