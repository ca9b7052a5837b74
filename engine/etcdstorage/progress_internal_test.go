package etcdstorage

import (
	"context"
	"errors"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestProgressNotifyOrdered(t *testing.T) {
	tests := map[string]bool{
		"3.4.23": false, "3.4.30": false, "3.4.31": true, "3.4.40": true,
		"3.5.0": false, "3.5.12": false, "3.5.13": true, "3.5.21": true,
		"3.6.0": true, "3.7.3": true, "": false, "not a version": false,
	}
	for v, want := range tests {
		if got := progressNotifyOrdered(v); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}

// fakeStatus answers Status with a version per endpoint, or an error.
type fakeStatus struct {
	versions map[string]string
	calls    int
}

func (f *fakeStatus) Endpoints() []string {
	eps := make([]string, 0, len(f.versions))
	for ep := range f.versions {
		eps = append(eps, ep)
	}
	return eps
}

func (f *fakeStatus) Status(_ context.Context, ep string) (*clientv3.StatusResponse, error) {
	f.calls++
	v := f.versions[ep]
	if v == "down" {
		return nil, errors.New("connection refused")
	}
	return &clientv3.StatusResponse{Version: v, Header: &etcdserverpb.ResponseHeader{}}, nil
}

// TestProgressCheck: every member must have an ordered etcd; the answer is
// kept once known, and an endpoint that does not answer leaves it open.
func TestProgressCheck(t *testing.T) {
	tests := map[string]struct {
		versions map[string]string
		want     bool
		err      bool
	}{
		"one new":         {versions: map[string]string{"a": "3.7.3"}, want: true},
		"one old":         {versions: map[string]string{"a": "3.4.23"}},
		"a mixed cluster": {versions: map[string]string{"a": "3.6.1", "b": "3.5.9", "c": "3.6.1"}},
		"all new":         {versions: map[string]string{"a": "3.5.13", "b": "3.6.0", "c": "3.4.31"}, want: true},
		"one down":        {versions: map[string]string{"a": "3.6.0", "b": "down"}, err: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := &fakeStatus{versions: tc.versions}
			p := &progressCheck{cli: f}
			for range 2 {
				got, err := p.supported(context.Background())
				if (err != nil) != tc.err || got != tc.want {
					t.Fatalf("supported = %v, %v; want %v (error %v)", got, err, tc.want, tc.err)
				}
			}
			if !tc.err && f.calls > len(tc.versions) {
				t.Fatalf("%d status calls for %d endpoints: the answer is not kept", f.calls, len(tc.versions))
			}
		})
	}
}
