package plugins

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/specd-io/specd/plugins/hook"
)

var alice = hook.UserInfo{Username: "alice", UID: "u-9", Groups: []string{"sailors", "system:authenticated"},
	Extra: map[string][]string{"scopes": {"read"}}}

// TestAdmissionUser: a plugin built with plugins/sdk is told the user of
// the request in AdmissionRequest.UserInfo (testplugin answers "whoami"
// with it), and an empty one when there is none.
func TestAdmissionUser(t *testing.T) {
	h, _ := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), nil)
	tests := map[string]struct {
		user hook.UserInfo
		want string
	}{
		"alice":   {user: alice, want: "user=alice uid=u-9 groups=[sailors system:authenticated] extra=map[scopes:[read]]"},
		"no user": {want: "user= uid= groups=[] extra=map[]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req := admission("CREATE", `{"action":"whoami"}`, "")
			req.UserInfo = tc.user
			errs, err := h.Validate(ctxTimeout(t, 20*time.Second), "widgets", req)
			if err != nil {
				t.Fatal(err)
			}
			if len(errs) != 1 || errs[0].Message != tc.want {
				t.Errorf("errors = %+v, want one saying %q", errs, tc.want)
			}
		})
	}
}

// sdkBaseline is the last commit whose plugins/sdk and protocol know no
// user: a plugin built from it is a plugin built against the previous
// SDK.
const sdkBaseline = "515beb76e4f1a0cced8456ab0082a50027812303"

// TestPreviousSDKPlugin: testplugin as built from the SDK and protocol of
// sdkBaseline (exported with git archive into a scratch module, built
// with go build) still defaults and validates when the host sends a user.
func TestPreviousSDKPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin from another commit")
	}
	bin := buildAtBaseline(t)
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "old-sdk")); err != nil {
		t.Fatal(err)
	}
	h, _ := newHost(t, dir, nil)
	ctx := ctxTimeout(t, 20*time.Second)
	req := admission("CREATE", `{"size":-1,"action":"whoami"}`, "")
	req.UserInfo = alice
	errs, err := h.Validate(ctx, "old-sdk", req)
	if err != nil {
		t.Fatal(err)
	}
	want := []hook.FieldError{{Type: "FieldValueInvalid", Field: "spec.size", Message: "must be at least 0", Value: "-1"}}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("old plugin's field errors (-want +got):\n%s", diff)
	}
	out, err := h.Default(ctx, "old-sdk", req)
	if err != nil || !strings.Contains(string(out), `"color":"blue"`) {
		t.Errorf("old plugin's default: %v %s", err, out)
	}
}

// buildAtBaseline builds plugins/testdata/testplugin from sdkBaseline; it
// skips the test where the repository's history is not at hand (no git,
// a shallow clone).
func buildAtBaseline(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git to export the previous SDK with")
	}
	if out, err := exec.Command(git, "cat-file", "-e", sdkBaseline+"^{commit}").CombinedOutput(); err != nil {
		t.Skipf("commit %s is not in this clone's history: %s", sdkBaseline, out)
	}
	// The baseline must really be an SDK without the user, or this test
	// proves nothing.
	old, err := exec.Command(git, "show", sdkBaseline+":plugins/sdk/request.go").Output()
	if err != nil || strings.Contains(string(old), "UserInfo") {
		t.Fatalf("the SDK at %s: %v; has UserInfo: %v", sdkBaseline, err, strings.Contains(string(old), "UserInfo"))
	}
	top, err := exec.Command(git, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse --show-toplevel: %v", err)
	}
	src := t.TempDir()
	tarball := filepath.Join(src, "src.tar")
	runIn(t, strings.TrimSpace(string(top)), git, "archive", "--output="+tarball, sdkBaseline, "go.mod", "go.sum", "plugins/sdk", "plugins/proto", "plugins/testdata/testplugin")
	runIn(t, src, "tar", "-xf", tarball)
	bin := filepath.Join(src, "testplugin")
	runIn(t, src, "go", "build", "-o", bin, "./plugins/testdata/testplugin")
	return bin
}

func runIn(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// userCallbacks records the user in the context of every call.
type userCallbacks struct {
	hook.Callbacks
	mu    sync.Mutex
	users map[string]bool
}

func (u *userCallbacks) saw(ctx context.Context) {
	name := "<none>"
	if usr, ok := request.UserFrom(ctx); ok {
		name = usr.GetName() + " " + strings.Join(usr.GetGroups(), ",")
	}
	u.mu.Lock()
	u.users[name] = true
	u.mu.Unlock()
}

func (u *userCallbacks) Get(ctx context.Context, r hook.ResourceRef, ns, name string) ([]byte, error) {
	u.saw(ctx)
	return u.Callbacks.Get(ctx, r, ns, name)
}

func (u *userCallbacks) List(ctx context.Context, r hook.ResourceRef, ns, sel string) ([]byte, error) {
	u.saw(ctx)
	return u.Callbacks.List(ctx, r, ns, sel)
}

func (u *userCallbacks) Create(ctx context.Context, r hook.ResourceRef, ns string, obj []byte) ([]byte, error) {
	u.saw(ctx)
	return u.Callbacks.Create(ctx, r, ns, obj)
}

func (u *userCallbacks) Update(ctx context.Context, r hook.ResourceRef, ns, name string, obj []byte) ([]byte, error) {
	u.saw(ctx)
	return u.Callbacks.Update(ctx, r, ns, name, obj)
}

func (u *userCallbacks) UpdateStatus(ctx context.Context, r hook.ResourceRef, ns, name string, obj []byte) ([]byte, error) {
	u.saw(ctx)
	return u.Callbacks.UpdateStatus(ctx, r, ns, name, obj)
}

func (u *userCallbacks) Patch(ctx context.Context, r hook.ResourceRef, ns, name, pt string, patch []byte, sub string) ([]byte, error) {
	u.saw(ctx)
	return u.Callbacks.Patch(ctx, r, ns, name, pt, patch, sub)
}

func (u *userCallbacks) Delete(ctx context.Context, r hook.ResourceRef, ns, name, pp string) error {
	u.saw(ctx)
	return u.Callbacks.Delete(ctx, r, ns, name, pp)
}

// TestCallbacksCarryPluginUser: every call a reconciler makes back to
// specd carries its own user, system:plugin:<its name>.
func TestCallbacksCarryPluginUser(t *testing.T) {
	cb := &userCallbacks{Callbacks: newFakeCallbacks(), users: map[string]bool{}}
	h, _ := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), cb)
	if _, err := h.Reconcile(ctxTimeout(t, 20*time.Second), "widgets", reconcileReq(widget(`{"action":"callbacks"}`))); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"system:plugin:widgets system:plugins,system:authenticated": true}
	if diff := cmp.Diff(want, cb.users); diff != "" {
		t.Errorf("users of the callbacks (-want +got):\n%s", diff)
	}
}
