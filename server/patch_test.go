package server

import (
	"context"
	"net/url"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
)

// Patch records the call and answers the stored object unchanged: the
// engine's tests cover what a patch does.
func (f *fakeStore) Patch(_ context.Context, req engine.PatchRequest) (engine.PatchResult, error) {
	rv, ns, name, patch, opts := req.Version, req.Namespace, req.Name, req.Patch, req.Options
	f.record(call{verb: "patch", resource: rv.Resource.GroupResource() + "/" + rv.Version, namespace: ns, name: name, body: string(patch), write: opts.WriteOptions})
	if f.err != nil {
		return engine.PatchResult{}, f.err
	}
	f.mu.Lock()
	obj, exists := f.objects[fsKey(rv, ns, name)]
	f.mu.Unlock()
	if !exists {
		return engine.PatchResult{}, apierrors.NewNotFound(gr(rv), name)
	}
	return engine.PatchResult{Result: engine.Result{Object: []byte(obj), Warnings: f.warnings}}, nil
}

func TestManagerOrUserAgent(t *testing.T) {
	long := ""
	for range 130 {
		long += "x"
	}
	tests := map[string]struct{ manager, ua, want string }{
		"fieldManager wins":      {manager: "ctl", ua: "kubectl/v1.36.3 (linux/amd64)", want: "ctl"},
		"user agent prefix":      {ua: "kubectl/v1.36.3 (linux/amd64) kubernetes/abc", want: "kubectl"},
		"no slash":               {ua: "Python-urllib", want: "Python-urllib"},
		"unprintable dropped":    {ua: "a\x01b/1", want: "ab"},
		"cut at 128 bytes":       {ua: long, want: long[:128]},
		"nothing is the unknown": {want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := managerOrUserAgent(tc.manager, tc.ua); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPatchOptions(t *testing.T) {
	tests := map[string]struct {
		query  string
		pt     engine.PatchType
		reason metav1.StatusReason
		force  bool
	}{
		"merge":                  {query: "fieldManager=m", pt: engine.MergePatchType},
		"apply with manager":     {query: "fieldManager=m&force=true", pt: engine.ApplyPatchType, force: true},
		"apply without manager":  {query: "", pt: engine.ApplyPatchType, reason: metav1.StatusReasonInvalid},
		"force on a merge patch": {query: "force=true", pt: engine.MergePatchType, reason: metav1.StatusReasonInvalid},
		"bad force":              {query: "fieldManager=m&force=maybe", pt: engine.ApplyPatchType, reason: metav1.StatusReasonBadRequest},
		"bad dryRun":             {query: "dryRun=Some", pt: engine.MergePatchType, reason: metav1.StatusReasonInvalid},
		"bad fieldValidation":    {query: "fieldValidation=Loose", pt: engine.MergePatchType, reason: metav1.StatusReasonInvalid},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			q, _ := parseQuery(tc.query)
			opts, err := patchOptions(q, tc.pt)
			if got := apierrors.ReasonForError(err); got != tc.reason {
				t.Fatalf("reason %q, want %q (%v)", got, tc.reason, err)
			}
			if err == nil && opts.Force != tc.force {
				t.Errorf("force %v, want %v", opts.Force, tc.force)
			}
		})
	}
}

func parseQuery(s string) (map[string][]string, error) { return url.ParseQuery(s) }
