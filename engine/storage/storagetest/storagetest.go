// Package storagetest is a conformance suite for storage.Storage
// implementations. Run it from a test of each implementation:
//
//	storagetest.Run(t, storagetest.Config{New: newStorage, Compact: compact})
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/specd-io/specd/engine/storage"
)

// Config tells the suite how to reach the implementation under test.
type Config struct {
	// New returns a Storage. Every call must return a Storage whose keys do
	// not overlap with earlier ones (for example through a fresh key prefix
	// passed back in Prefix or an empty store).
	New func(t *testing.T) (s storage.Storage, prefix string)
	// Compact discards history up to revision; the compaction tests are
	// skipped when nil.
	Compact func(ctx context.Context, revision int64) error
}

// Run runs every conformance test.
func Run(t *testing.T, c Config) {
	t.Helper()
	tests := map[string]func(*testing.T, storage.Storage, string){
		"CreateGet":              testCreateGet,
		"CreateExists":           testCreateExists,
		"GetNotFound":            testGetNotFound,
		"Update":                 testUpdate,
		"UpdateConflict":         testUpdateConflict,
		"UpdateNotFound":         testUpdateNotFound,
		"Delete":                 testDelete,
		"DeleteRevision":         testDeleteRevision,
		"DeleteNotFound":         testDeleteNotFound,
		"ListPrefix":             testListPrefix,
		"ListPaging":             testListPaging,
		"ListSnapshot":           testListSnapshot,
		"RevisionsIncrease":      testRevisionsIncrease,
		"ListStartKeyOutOfRange": testListStartKeyOutOfRange,
		"Watch":                  testWatch,
		"WatchFromRevision":      testWatchFromRevision,
		"WatchStops":             testWatchStops,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			s, prefix := c.New(t)
			fn(t, s, prefix)
		})
	}
	if c.Compact != nil {
		t.Run("Compacted", func(t *testing.T) {
			s, prefix := c.New(t)
			testCompacted(t, s, prefix, c.Compact)
		})
		t.Run("WatchCompacted", func(t *testing.T) {
			s, prefix := c.New(t)
			testWatchCompacted(t, s, prefix, c.Compact)
		})
	}
}

func mustCreate(t *testing.T, s storage.Storage, key, value string) int64 {
	t.Helper()
	rev, err := s.Create(context.Background(), key, []byte(value))
	if err != nil {
		t.Fatalf("Create(%q): %v", key, err)
	}
	if rev <= 0 {
		t.Fatalf("Create(%q) revision = %d, want > 0", key, rev)
	}
	return rev
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

func testCreateGet(t *testing.T, s storage.Storage, p string) {
	ctx := context.Background()
	rev := mustCreate(t, s, p+"a", `{"x":1}`)
	kv, err := s.Get(ctx, p+"a")
	if err != nil {
		t.Fatal(err)
	}
	if kv.Key != p+"a" || string(kv.Value) != `{"x":1}` || kv.ModRevision != rev {
		t.Fatalf("Get = %+v, want value {\"x\":1} at %d", kv, rev)
	}
}

func testCreateExists(t *testing.T, s storage.Storage, p string) {
	mustCreate(t, s, p+"a", "1")
	_, err := s.Create(context.Background(), p+"a", []byte("2"))
	wantErr(t, "second Create", err, storage.ErrKeyExists)
	kv, err := s.Get(context.Background(), p+"a")
	if err != nil || string(kv.Value) != "1" {
		t.Fatalf("after failed Create: %q, %v; want 1", kv.Value, err)
	}
}

func testGetNotFound(t *testing.T, s storage.Storage, p string) {
	_, err := s.Get(context.Background(), p+"missing")
	wantErr(t, "Get", err, storage.ErrKeyNotFound)
}

func testUpdate(t *testing.T, s storage.Storage, p string) {
	ctx := context.Background()
	rev := mustCreate(t, s, p+"a", "1")
	rev2, err := s.Update(ctx, p+"a", []byte("2"), rev)
	if err != nil {
		t.Fatal(err)
	}
	if rev2 <= rev {
		t.Fatalf("Update revision %d, want > %d", rev2, rev)
	}
	kv, err := s.Get(ctx, p+"a")
	if err != nil || string(kv.Value) != "2" || kv.ModRevision != rev2 {
		t.Fatalf("Get after Update = %+v, %v", kv, err)
	}
}

func testUpdateConflict(t *testing.T, s storage.Storage, p string) {
	ctx := context.Background()
	rev := mustCreate(t, s, p+"a", "1")
	if _, err := s.Update(ctx, p+"a", []byte("2"), rev); err != nil {
		t.Fatal(err)
	}
	_, err := s.Update(ctx, p+"a", []byte("3"), rev)
	wantErr(t, "stale Update", err, storage.ErrConflict)
	kv, _ := s.Get(ctx, p+"a")
	if string(kv.Value) != "2" {
		t.Fatalf("value after conflict = %q, want 2", kv.Value)
	}
}

func testUpdateNotFound(t *testing.T, s storage.Storage, p string) {
	_, err := s.Update(context.Background(), p+"missing", []byte("1"), 5)
	wantErr(t, "Update", err, storage.ErrKeyNotFound)
	_, err = s.Get(context.Background(), p+"missing")
	wantErr(t, "Get after failed Update", err, storage.ErrKeyNotFound)
}

func testDelete(t *testing.T, s storage.Storage, p string) {
	ctx := context.Background()
	rev := mustCreate(t, s, p+"a", "1")
	kv, err := s.Delete(ctx, p+"a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(kv.Value) != "1" || kv.ModRevision != rev || kv.Key != p+"a" {
		t.Fatalf("Delete returned %+v", kv)
	}
	_, err = s.Get(ctx, p+"a")
	wantErr(t, "Get after Delete", err, storage.ErrKeyNotFound)
}

func testDeleteRevision(t *testing.T, s storage.Storage, p string) {
	ctx := context.Background()
	rev := mustCreate(t, s, p+"a", "1")
	rev2, err := s.Update(ctx, p+"a", []byte("2"), rev)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Delete(ctx, p+"a", rev)
	wantErr(t, "Delete at stale revision", err, storage.ErrConflict)
	kv, err := s.Delete(ctx, p+"a", rev2)
	if err != nil || string(kv.Value) != "2" {
		t.Fatalf("Delete at current revision = %+v, %v", kv, err)
	}
}

func testDeleteNotFound(t *testing.T, s storage.Storage, p string) {
	_, err := s.Delete(context.Background(), p+"missing", 0)
	wantErr(t, "Delete", err, storage.ErrKeyNotFound)
	_, err = s.Delete(context.Background(), p+"missing", 7)
	wantErr(t, "Delete with revision", err, storage.ErrKeyNotFound)
}

func keysOf(items []storage.KeyValue) []string {
	keys := make([]string, len(items))
	for i, kv := range items {
		keys[i] = kv.Key
	}
	return keys
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func testListPrefix(t *testing.T, s storage.Storage, p string) {
	ctx := context.Background()
	for _, k := range []string{"a/2", "a/1", "ab/1", "b/1"} {
		mustCreate(t, s, p+k, k)
	}
	res, err := s.List(ctx, p+"a/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{p + "a/1", p + "a/2"}; !equal(keysOf(res.Items), want) {
		t.Fatalf("List(a/) keys = %v, want %v", keysOf(res.Items), want)
	}
	if res.More || res.Remaining != 0 || res.Revision <= 0 {
		t.Fatalf("List(a/) More=%v Remaining=%d Revision=%d", res.More, res.Remaining, res.Revision)
	}
	if string(res.Items[0].Value) != "a/1" || res.Items[0].ModRevision <= 0 {
		t.Fatalf("item = %+v", res.Items[0])
	}
	res, err = s.List(ctx, p+"none/", storage.ListOptions{})
	if err != nil || len(res.Items) != 0 {
		t.Fatalf("List(none/) = %+v, %v", res, err)
	}
}

func testListPaging(t *testing.T, s storage.Storage, p string) {
	ctx := context.Background()
	var want []string
	for i := range 7 {
		k := fmt.Sprintf("%sx/%02d", p, i)
		mustCreate(t, s, k, "v")
		want = append(want, k)
	}
	var got []string
	opts := storage.ListOptions{Limit: 3}
	for page := 0; ; page++ {
		res, err := s.List(ctx, p+"x/", opts)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, keysOf(res.Items)...)
		remaining := int64(len(want) - len(got))
		if res.More != (remaining > 0) || res.Remaining != remaining {
			t.Fatalf("page %d: More=%v Remaining=%d, want remaining %d", page, res.More, res.Remaining, remaining)
		}
		if !res.More {
			break
		}
		last := res.Items[len(res.Items)-1].Key
		opts = storage.ListOptions{Limit: 3, StartKey: last + "\x00", Revision: res.Revision}
	}
	if !equal(got, want) {
		t.Fatalf("paged keys = %v, want %v", got, want)
	}
}

func testListSnapshot(t *testing.T, s storage.Storage, p string) {
	ctx := context.Background()
	mustCreate(t, s, p+"s/1", "old")
	res, err := s.List(ctx, p+"s/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	snap := res.Revision
	kv, _ := s.Get(ctx, p+"s/1")
	if _, err := s.Update(ctx, p+"s/1", []byte("new"), kv.ModRevision); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, p+"s/2", "later")
	res, err = s.List(ctx, p+"s/", storage.ListOptions{Revision: snap})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || string(res.Items[0].Value) != "old" || res.Revision != snap {
		t.Fatalf("snapshot list = %+v, want only s/1=old at %d", res, snap)
	}
	res, err = s.List(ctx, p+"s/", storage.ListOptions{})
	if err != nil || len(res.Items) != 2 || res.Revision <= snap {
		t.Fatalf("current list = %+v, %v", res, err)
	}
}

func testRevisionsIncrease(t *testing.T, s storage.Storage, p string) {
	r1 := mustCreate(t, s, p+"r/1", "1")
	r2 := mustCreate(t, s, p+"r/2", "2")
	if r2 <= r1 {
		t.Fatalf("revisions %d then %d, want increasing", r1, r2)
	}
}

func testListStartKeyOutOfRange(t *testing.T, s storage.Storage, p string) {
	_, err := s.List(context.Background(), p+"a/", storage.ListOptions{StartKey: p + "b/"})
	if err == nil {
		t.Fatal("List with a start key outside the prefix succeeded")
	}
}

func testCompacted(t *testing.T, s storage.Storage, p string, compact func(context.Context, int64) error) {
	ctx := context.Background()
	r1 := mustCreate(t, s, p+"c/1", "1")
	kv, _ := s.Get(ctx, p+"c/1")
	r2, err := s.Update(ctx, p+"c/1", []byte("2"), kv.ModRevision)
	if err != nil {
		t.Fatal(err)
	}
	if err := compact(ctx, r2); err != nil {
		t.Fatal(err)
	}
	_, err = s.List(ctx, p+"c/", storage.ListOptions{Revision: r1})
	wantErr(t, "List at compacted revision", err, storage.ErrCompacted)
}
