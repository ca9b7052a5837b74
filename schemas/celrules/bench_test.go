package celrules

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// benchRules are 20 rules of the kinds CRDs carry: presence and one-of
// checks, comparisons, string functions and regular expressions, list
// macros over bounded lists, quantities, URLs, IPs, and a transition rule.
var benchRules = []string{
	`{"rule":"has(self.replicas) || has(self.autoscale)","message":"replicas or autoscale"}`,
	`{"rule":"!(has(self.replicas) && has(self.autoscale))","message":"not both"}`,
	`{"rule":"!has(self.autoscale) || self.autoscale.min <= self.autoscale.max","message":"min <= max"}`,
	`{"rule":"self.replicas >= 0 && self.replicas <= 100","message":"replicas range"}`,
	`{"rule":"self.image.contains(':')","message":"image has a tag"}`,
	`{"rule":"self.image.matches('^[a-z0-9./-]+:[a-zA-Z0-9._-]+$')","message":"image reference"}`,
	`{"rule":"!self.image.endsWith(':latest')","messageExpression":"'image ' + self.image + ' uses latest'"}`,
	`{"rule":"self.mode in ['fast', 'safe', 'slow']","message":"mode"}`,
	`{"rule":"self.ports.all(p, p.port > 0 && p.port < 65536)","message":"ports in range"}`,
	`{"rule":"self.ports.exists(p, p.name == 'http')","message":"an http port"}`,
	`{"rule":"self.ports.size() <= 8","message":"at most 8 ports"}`,
	`{"rule":"self.ports.map(p, p.name).size() == self.ports.size()","message":"port names"}`,
	`{"rule":"self.tags.all(t, t.size() <= 32)","message":"short tags"}`,
	`{"rule":"isQuantity(self.memory) && quantity(self.memory).isLessThan(quantity('64Gi'))","message":"memory"}`,
	`{"rule":"isURL(self.endpoint) && url(self.endpoint).getScheme() == 'https'","message":"https endpoint"}`,
	`{"rule":"isCIDR(self.network) && cidr(self.network).prefixLength() >= 8","message":"network"}`,
	`{"rule":"self.owner.size() > 0 && self.owner.lowerAscii() == self.owner","message":"owner lowercase"}`,
	`{"rule":"self.timeoutSeconds < 3600","message":"timeout below an hour"}`,
	`{"rule":"!has(self.suspend) || !self.suspend || self.replicas == 0","message":"suspended has no replicas"}`,
	`{"rule":"self.owner == oldSelf.owner","message":"owner is immutable"}`,
}

func benchSchema() string {
	return `{"type":"object","properties":{"spec":{"type":"object","required":["image","mode","ports","tags","memory","endpoint","network","owner","timeoutSeconds"],
		"properties":{
			"replicas":{"type":"integer"},
			"autoscale":{"type":"object","properties":{"min":{"type":"integer"},"max":{"type":"integer"}}},
			"image":{"type":"string","maxLength":256},
			"mode":{"type":"string","maxLength":8},
			"ports":{"type":"array","maxItems":16,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
				"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string","maxLength":16},"port":{"type":"integer"}}}},
			"tags":{"type":"array","maxItems":16,"items":{"type":"string","maxLength":64}},
			"memory":{"type":"string","maxLength":16},
			"endpoint":{"type":"string","maxLength":256},
			"network":{"type":"string","maxLength":64},
			"owner":{"type":"string","maxLength":64},
			"timeoutSeconds":{"type":"integer"},
			"suspend":{"type":"boolean"}},
		"x-kubernetes-validations":[` + strings.Join(benchRules, ",") + `]}}}`
}

func benchObject(owner string) string {
	return `{"apiVersion":"bench.example.com/v1","kind":"Service","metadata":{"name":"bench","namespace":"default"},
		"spec":{"replicas":3,"image":"registry.example.com/team/app:1.4.2","mode":"safe",
		"ports":[{"name":"http","port":8080},{"name":"metrics","port":9090}],"tags":["web","backend","team-a"],
		"memory":"512Mi","endpoint":"https://example.com/hook","network":"10.0.0.0/16","owner":"` + owner + `","timeoutSeconds":30}}`
}

func TestBenchObjectPasses(t *testing.T) {
	r := mustCompile(t, benchSchema())
	if r.Count() != 20 {
		t.Fatalf("%d rules, want 20", r.Count())
	}
	if got := validate(t, r, benchObject("alice"), ""); got != "" {
		t.Fatalf("create: %s", got)
	}
	if got := validate(t, r, benchObject("bob"), benchObject("alice")); got != `FieldValueInvalid spec: Invalid value: owner is immutable` {
		t.Fatalf("update: %s", got)
	}
}

// BenchmarkValidateCreate is the CEL validation of one create with 20
// rules, compiled once; it reports the median of single calls too.
func BenchmarkValidateCreate(b *testing.B) {
	benchValidate(b, "")
}

// BenchmarkValidateUpdate is the same with the old object: the transition
// rule runs and ratcheting compares old and new values.
func BenchmarkValidateUpdate(b *testing.B) {
	benchValidate(b, benchObject("alice"))
}

func benchValidate(b *testing.B, old string) {
	r := mustCompile(b, benchSchema())
	obj, oldObj := object(b, benchObject("alice")), object(b, old)
	ctx := context.Background()
	times := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		errs, _ := r.Validate(ctx, obj, oldObj, nil)
		times = append(times, time.Since(start))
		if len(errs) > 0 {
			b.Fatal(errs)
		}
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkCompile is the load-time cost of checking and compiling the
// 20 rules: "first" as a first load does (the cache emptied each time),
// "again" as a reload of the unchanged schema does while the registry it
// replaces still holds the Rules.
func BenchmarkCompile(b *testing.B) {
	benchCompile(b, []*openapi3.Schema{parseSchema(b, benchSchema())})
}

// benchCompile compiles all, first with an empty cache, then again with
// the previous load's Rules held.
func benchCompile(b *testing.B, all []*openapi3.Schema) {
	for _, mode := range []string{"first", "again"} {
		b.Run(mode, func(b *testing.B) {
			held := make([]*Rules, len(all))
			compileAll(b, all, held)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if mode == "first" {
					compiled.reset()
				}
				compileAll(b, all, held)
			}
		})
	}
}

// compileAll compiles every schema, keeping the Rules in held as a served
// registry keeps them.
func compileAll(b *testing.B, all []*openapi3.Schema, held []*Rules) {
	for i, s := range all {
		r, probs := Compile(s)
		if len(probs) > 0 {
			b.Fatal(fmt.Sprint(probs))
		}
		held[i] = r
	}
}
