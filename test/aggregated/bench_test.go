package aggregated

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// The host's copy of examples/crds' Robot: the same schema, in a group of
// its own (specd serves toys.example.com from the same file).
var (
	specdRobots = schema.GroupVersionResource{Group: "toys.example.com", Version: "v1", Resource: "robots"}
	hostRobots  = schema.GroupVersionResource{Group: "hosttoys.example.com", Version: "v1", Resource: "robots"}
	crds        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// robotsRBAC lets alice get and create robots, specd's and the host's,
// in team-a.
const robotsRBAC = `---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: robots, namespace: team-a}
rules:
- apiGroups: [toys.example.com, hosttoys.example.com]
  resources: [robots]
  verbs: [get, create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-robots, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: robots}
subjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]
`

// BenchmarkAggregated compares, on one host, specd's Robots through the
// aggregator with the host's own CRD of the same schema: creates and gets
// as the host's admin (system:masters: no SubjectAccessReview), gets as
// alice (a SubjectAccessReview at specd, cached), and the same gets
// straight to specd, whose difference is the hop: as the user, and as the
// host's front proxy sends them (its client certificate, X-Remote-User).
// Each reports its p50 and p99 in microseconds.
func BenchmarkAggregated(b *testing.B) {
	h := startHost(b)
	s := setUpSpecd(b, h, "examples/crds")
	createHostCRD(b, h)
	awaitAvailable(b, h, "v1.toys.example.com")
	applyYAML(b, h, teamRBAC+robotsRBAC)
	h.pki.client(b, "alice", "alice")
	admin := unlimited(h.restConfig(b, h.admin))
	alice := unlimited(h.restConfig(b, h.kubeconfig(b, "alice", "alice")))
	specdAdmin := unlimited(h.restConfig(b, s.admin))
	aliceStraight := unlimited(s.restConfigAs(b, h, "alice"))
	// What the host's proxy sends: its client certificate, and alice.
	proxied := s.restConfigAs(b, h, "front-proxy-client")
	proxied.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			r.Header.Set("X-Remote-User", "alice")
			r.Header.Set("X-Remote-Group", "system:authenticated")
			return rt.RoundTrip(r)
		})
	}
	aliceProxied := unlimited(proxied)
	for _, c := range []struct {
		name   string
		client dynamic.Interface
		gvr    schema.GroupVersionResource
		op     string
	}{
		{"create/crd", admin, hostRobots, "create"},
		{"create/specd-through-host", admin, specdRobots, "create"},
		{"get/crd", admin, hostRobots, "get"},
		{"get/specd-through-host", admin, specdRobots, "get"},
		{"get/specd-straight", specdAdmin, specdRobots, "get"},
		{"get-with-review/crd", alice, hostRobots, "get"},
		{"get-with-review/specd-through-host", alice, specdRobots, "get"},
		{"get-with-review/specd-straight", aliceStraight, specdRobots, "get"},
		{"get-with-review/specd-as-the-proxy", aliceProxied, specdRobots, "get"},
	} {
		b.Run(c.name, func(b *testing.B) { benchOp(b, c.client, c.gvr, c.op) })
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// unlimited is a client of cfg without client-go's rate limit (5 per
// second by default), which would be all the benchmark measures.
func unlimited(cfg *rest.Config) dynamic.Interface {
	cfg.QPS = -1
	return dynamic.NewForConfigOrDie(cfg)
}

// benchOp creates robots, or gets one, b.N times and reports latencies.
func benchOp(b *testing.B, client dynamic.Interface, gvr schema.GroupVersionResource, op string) {
	ctx := context.Background()
	rc := client.Resource(gvr).Namespace("team-a")
	if _, err := rc.Create(ctx, robot(gvr, "fixed"), metav1.CreateOptions{}); err != nil && !strings.Contains(err.Error(), "already exists") {
		b.Fatal(err)
	}
	var took []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		var err error
		if op == "create" {
			i++
			_, err = rc.Create(ctx, robot(gvr, fmt.Sprintf("r-%d-%d", b.N, i)), metav1.CreateOptions{})
		} else {
			_, err = rc.Get(ctx, "fixed", metav1.GetOptions{})
		}
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// robot is a Robot of gvr's group.
func robot(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(), "kind": "Robot",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"cells": int64(4), "remote": "r1"}}}
}

// createHostCRD creates the host's copy of the Robot CRD and waits for
// it to be served.
func createHostCRD(b *testing.B, h *host) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples/crds/toys.example.com.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	doc := strings.Split(string(data), "\n---\n")[1]
	var crd map[string]any
	if err := yaml.Unmarshal([]byte(doc), &crd); err != nil {
		b.Fatal(err)
	}
	meta, spec := crd["metadata"].(map[string]any), crd["spec"].(map[string]any)
	meta["name"], spec["group"] = "robots."+hostRobots.Group, hostRobots.Group
	delete(meta, "annotations")
	spec["conversion"] = map[string]any{"strategy": "None"}
	dc := dynamic.NewForConfigOrDie(h.restConfig(b, h.admin))
	if _, err := dc.Resource(crds).Create(context.Background(), &unstructured.Unstructured{Object: crd}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	eventually(b, 30*time.Second, "the host's Robot CRD served", func() (bool, string) {
		_, err := dc.Resource(hostRobots).Namespace("default").List(context.Background(), metav1.ListOptions{})
		return err == nil, fmt.Sprint(err)
	})
}

// BenchmarkCachedSubjectAccessReview is what specd's authorizer costs for
// a host user whose decision the cache holds: kube's delegating
// authorizer, built as specd builds it, asked again and again.
func BenchmarkCachedSubjectAccessReview(b *testing.B) {
	h := startHost(b)
	opts := options.NewDelegatingAuthorizationOptions()
	opts.RemoteKubeConfigFile = h.admin
	var info server.AuthorizationInfo
	if err := opts.ApplyTo(&info); err != nil {
		b.Fatal(err)
	}
	attrs := authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}},
		Verb: "get", Namespace: "team-a", APIGroup: "toys.example.com", APIVersion: "v1", Resource: "robots", Name: "fixed",
		ResourceRequest: true}
	ctx := context.Background()
	if _, _, err := info.Authorizer.Authorize(ctx, attrs); err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		_, _, err := info.Authorizer.Authorize(ctx, attrs)
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1000, "p50-µs")
}
