package engine_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// TestAdmissionUser: the defaulting and validation plugins are told the
// user that authentication put in the request's context, on create and
// update; with no user they are told none.
func TestAdmissionUser(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"sailors", user.AllAuthenticated},
		Extra: map[string][]string{"scopes": {"read", "write"}}}
	want := hook.UserInfo{Username: "alice", UID: "u-1", Groups: []string{"sailors", user.AllAuthenticated},
		Extra: map[string][]string{"scopes": {"read", "write"}}}
	tests := map[string]struct {
		ctx  context.Context
		want hook.UserInfo
	}{
		"authenticated": {ctx: request.WithUser(context.Background(), alice), want: want},
		"no user":       {ctx: context.Background(), want: hook.UserInfo{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			plugins := shipPolicy()
			store := newAdmittingStore(t, plugins)
			rv := ships(t, schemas.FailurePolicyFail, time.Second)
			res, err := store.Create(tc.ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "sea"}, Body: ship("a", `{"registry":"Oslo"}`), Options: engine.WriteOptions{}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Update(tc.ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: "sea", Name: "a"}, Body: res.Object, Options: engine.WriteOptions{}}); err != nil {
				t.Fatal(err)
			}
			calls := plugins.took()
			if len(calls) != 4 {
				t.Fatalf("calls = %+v, want default and validate twice", calls)
			}
			for _, c := range calls {
				if !reflect.DeepEqual(c.req.UserInfo, tc.want) {
					t.Errorf("%s %s: UserInfo = %+v, want %+v", c.req.Operation, c.hook, c.req.UserInfo, tc.want)
				}
			}
		})
	}
}
