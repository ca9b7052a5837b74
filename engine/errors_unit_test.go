package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/engine/storage"
)

// TestStorageStatusUnknownOutcome: a write whose outcome is unknown is
// kube-apiserver's 500 with etcd's message, saying so; the request's own
// deadline is its 504 Timeout.
func TestStorageStatusUnknownOutcome(t *testing.T) {
	tests := map[string]struct {
		err      error
		code     int32
		message  string
		isStatus func(error) bool
	}{
		"etcd timed out": {
			err:      fmt.Errorf("etcdstorage: create %q: %w", "/specd/k", &storage.UnknownOutcomeError{Cause: rpctypes.ErrTimeoutDueToLeaderFail}),
			code:     500,
			message:  "Internal error occurred: etcdserver: request timed out, possibly due to previous leader failure; the write may or may not have been applied",
			isStatus: apierrors.IsInternalError,
		},
		"the request's deadline": {
			err:      fmt.Errorf("etcdstorage: get %q: %w: %w", "/specd/k", storage.ErrTimeout, context.DeadlineExceeded),
			code:     504,
			message:  "Timeout: request did not complete within requested timeout - context deadline exceeded",
			isStatus: apierrors.IsTimeout,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := storageStatus(tc.err)
			var st apierrors.APIStatus
			if !errors.As(err, &st) || !tc.isStatus(err) {
				t.Fatalf("%v: not the Status wanted", err)
			}
			if s := st.Status(); s.Code != tc.code || s.Message != tc.message {
				t.Errorf("got %d %q, want %d %q", s.Code, s.Message, tc.code, tc.message)
			}
		})
	}
}
