package encryption_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/specd-io/specd/engine/encryption"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/engine/storage/storagetest"
)

var client *clientv3.Client

func TestMain(m *testing.M) {
	os.Exit(etcdtest.Main(m, func(c *clientv3.Client) { client = c }))
}

var prefixes atomic.Int64

// newPrefix is a key prefix of the test's own, as the engine's
// Options.Prefix.
func newPrefix() string { return fmt.Sprintf("/enc%d/", prefixes.Add(1)) }

// Providers of the tests, as a config's providers list.
const (
	aescbcK1 = "[{aescbc: {keys: [{name: k1, secret: " + key1 + "}]}}]"
	aescbcK2 = "[{aescbc: {keys: [{name: k2, secret: " + key2 + "}]}}]"
	// rotated: k2 added first; k1 still reads.
	aescbcK2K1 = "[{aescbc: {keys: [{name: k2, secret: " + key2 + "}, {name: k1, secret: " + key1 + "}]}}]"
)

// wrapped is a Storage under prefix whose widgets.shop.example.com (and
// core secrets) are encrypted with providers.
func wrapped(t *testing.T, prefix, providers string) storage.Storage {
	t.Helper()
	c := mustLoad(t, "- resources: [widgets.shop.example.com, secrets]\n  providers: "+providers+"\n")
	return encryption.Wrap(etcdstorage.New(client), c, prefix)
}

// raw is the value etcd holds under key.
func raw(t *testing.T, key string) string {
	t.Helper()
	resp, err := client.Get(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 {
		t.Fatalf("etcd holds nothing under %s", key)
	}
	return string(resp.Kvs[0].Value)
}

const plain = `{"kind":"Widget","spec":{"password":"hunter2"}}`

// TestConformance runs the storage contract's suite on a Storage that
// encrypts every key it writes.
func TestConformance(t *testing.T) {
	c := mustLoad(t, "- resources: ['*.*']\n  providers: "+aescbcK1+"\n")
	base := etcdstorage.New(client)
	prefix := newPrefix()
	var n atomic.Int64
	storagetest.Run(t, storagetest.Config{New: func(t *testing.T) (storage.Storage, string) {
		return encryption.Wrap(base, c, prefix), fmt.Sprintf("%sgroup.example.com/r%d/", prefix, n.Add(1))
	}})
}

func TestStoredForm(t *testing.T) {
	tests := map[string]struct{ providers, prefix string }{
		"aescbc":    {aescbcK1, "k8s:enc:aescbc:v1:k1:"},
		"aesgcm":    {"[{aesgcm: {keys: [{name: g, secret: " + key16 + "}]}}]", "k8s:enc:aesgcm:v1:g:"},
		"secretbox": {"[{secretbox: {keys: [{name: b, secret: " + key2 + "}]}}]", "k8s:enc:secretbox:v1:b:"},
		"identity":  {"[{identity: {}}, {aescbc: {keys: [{name: k1, secret: " + key1 + "}]}}]", "{"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			prefix := newPrefix()
			st := wrapped(t, prefix, tc.providers)
			key := prefix + "shop.example.com/widgets/default/w1"
			if _, err := st.Create(t.Context(), key, []byte(plain)); err != nil {
				t.Fatal(err)
			}
			stored := raw(t, key)
			if !strings.HasPrefix(stored, tc.prefix) {
				t.Errorf("etcd holds %q, want it to start with %q", stored, tc.prefix)
			}
			if name != "identity" && strings.Contains(stored, "hunter2") {
				t.Errorf("etcd holds the plaintext: %q", stored)
			}
			kv, err := st.Get(t.Context(), key)
			if err != nil || string(kv.Value) != plain || kv.Stale {
				t.Errorf("Get: %q stale=%v %v, want the plaintext", kv.Value, kv.Stale, err)
			}
		})
	}
}

// TestNotCovered: a resource the configuration does not name is stored as
// it is, and so is specd's bookkeeping beside the resources.
func TestNotCovered(t *testing.T) {
	prefix := newPrefix()
	st := wrapped(t, prefix, aescbcK1)
	for _, key := range []string{prefix + "shop.example.com/warehouses/w1", prefix + "_storage-migrations/shop.example.com/widgets", prefix + "core/configmaps/default/c"} {
		if _, err := st.Create(t.Context(), key, []byte(plain)); err != nil {
			t.Fatal(err)
		}
		if got := raw(t, key); got != plain {
			t.Errorf("%s: etcd holds %q, want the value as it is", key, got)
		}
	}
	// The core group's key has an empty group segment.
	key := prefix + "core/secrets/default/s"
	if _, err := st.Create(t.Context(), key, []byte(plain)); err != nil {
		t.Fatal(err)
	}
	if got := raw(t, key); !strings.HasPrefix(got, "k8s:enc:aescbc:v1:k1:") {
		t.Errorf("core secret: etcd holds %q", got)
	}
}

// TestRotation: a new key added first writes; values of the old one still
// read, stale, until they are written again.
func TestRotation(t *testing.T) {
	prefix := newPrefix()
	key := prefix + "shop.example.com/widgets/default/w1"
	if _, err := wrapped(t, prefix, aescbcK1).Create(t.Context(), key, []byte(plain)); err != nil {
		t.Fatal(err)
	}
	rotated := wrapped(t, prefix, aescbcK2K1)
	kv, err := rotated.Get(t.Context(), key)
	if err != nil || string(kv.Value) != plain || !kv.Stale {
		t.Fatalf("Get after rotation: %q stale=%v %v, want the plaintext, stale", kv.Value, kv.Stale, err)
	}
	if _, err := rotated.Update(t.Context(), key, kv.Value, kv.ModRevision); err != nil {
		t.Fatal(err)
	}
	if got := raw(t, key); !strings.HasPrefix(got, "k8s:enc:aescbc:v1:k2:") {
		t.Errorf("after an update etcd holds %q, want the new key's", got)
	}
	if kv, err = rotated.Get(t.Context(), key); err != nil || kv.Stale {
		t.Errorf("Get after the update: stale=%v %v", kv.Stale, err)
	}
	// The old key can go now.
	if kv, err = wrapped(t, prefix, aescbcK2).Get(t.Context(), key); err != nil || string(kv.Value) != plain {
		t.Errorf("Get with the new key only: %q %v", kv.Value, err)
	}
}

// TestTurningEncryptionOn: values written before (plaintext) read with
// identity after the encrypting provider, stale; without identity they
// do not read at all.
func TestTurningEncryptionOn(t *testing.T) {
	prefix := newPrefix()
	key := prefix + "shop.example.com/widgets/default/old"
	if _, err := etcdstorage.New(client).Create(t.Context(), key, []byte(plain)); err != nil {
		t.Fatal(err)
	}
	on := wrapped(t, prefix, "[{aescbc: {keys: [{name: k1, secret: "+key1+"}]}}, {identity: {}}]")
	kv, err := on.Get(t.Context(), key)
	if err != nil || string(kv.Value) != plain || !kv.Stale {
		t.Errorf("Get: %q stale=%v %v, want the plaintext, stale", kv.Value, kv.Stale, err)
	}
	if _, err := wrapped(t, prefix, aescbcK1).Get(t.Context(), key); !errors.Is(err, encryption.ErrDecrypt) {
		t.Errorf("Get without identity: %v, want ErrDecrypt", err)
	}
}

// TestTurningEncryptionOff: identity first writes plaintext, and the
// encrypted values still read, stale.
func TestTurningEncryptionOff(t *testing.T) {
	prefix := newPrefix()
	key := prefix + "shop.example.com/widgets/default/w"
	if _, err := wrapped(t, prefix, aescbcK1).Create(t.Context(), key, []byte(plain)); err != nil {
		t.Fatal(err)
	}
	off := wrapped(t, prefix, "[{identity: {}}, {aescbc: {keys: [{name: k1, secret: "+key1+"}]}}]")
	kv, err := off.Get(t.Context(), key)
	if err != nil || string(kv.Value) != plain || !kv.Stale {
		t.Fatalf("Get: %q stale=%v %v, want the plaintext, stale", kv.Value, kv.Stale, err)
	}
	if _, err := off.Update(t.Context(), key, kv.Value, kv.ModRevision); err != nil {
		t.Fatal(err)
	}
	if got := raw(t, key); got != plain {
		t.Errorf("after an update etcd holds %q, want the plaintext", got)
	}
}

// TestDecryptFailure: a value whose key is gone fails every read that
// meets it, naming the resource and the object; a list is not shortened.
func TestDecryptFailure(t *testing.T) {
	prefix := newPrefix()
	list := prefix + "shop.example.com/widgets/"
	for _, name := range []string{"a", "b", "c"} {
		if _, err := wrapped(t, prefix, aescbcK1).Create(t.Context(), list+"default/"+name, []byte(plain)); err != nil {
			t.Fatal(err)
		}
	}
	lost := wrapped(t, prefix, aescbcK2)
	want := `encryption: decryption failed: widgets.shop.example.com "default/b"`
	_, err := lost.Get(t.Context(), list+"default/b")
	if !errors.Is(err, encryption.ErrDecrypt) || !strings.Contains(err.Error(), want) {
		t.Errorf("Get: %v, want %q", err, want)
	}
	res, err := lost.List(t.Context(), list, storage.ListOptions{})
	if !errors.Is(err, encryption.ErrDecrypt) || len(res.Items) != 0 {
		t.Errorf("List: %d items, %v; want ErrDecrypt and nothing", len(res.Items), err)
	}
	res, err = lost.List(t.Context(), prefix, storage.ListOptions{})
	if !errors.Is(err, encryption.ErrDecrypt) || len(res.Items) != 0 {
		t.Errorf("List of the whole prefix: %d items, %v; want ErrDecrypt and nothing", len(res.Items), err)
	}
	kv, err := lost.Delete(t.Context(), list+"default/c", 0)
	if !errors.Is(err, encryption.ErrDecrypt) || !strings.Contains(err.Error(), "deleted, but") || kv.Value != nil {
		t.Errorf("Delete: %q %v, want ErrDecrypt saying it was deleted", kv.Value, err)
	}
}

// TestAuthenticatedData: with aesgcm the key is authenticated: a value
// copied under another key does not read.
func TestAuthenticatedData(t *testing.T) {
	prefix := newPrefix()
	st := wrapped(t, prefix, "[{aesgcm: {keys: [{name: g, secret: "+key2+"}]}}]")
	from, to := prefix+"shop.example.com/widgets/default/a", prefix+"shop.example.com/widgets/default/b"
	if _, err := st.Create(t.Context(), from, []byte(plain)); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Put(t.Context(), to, raw(t, from)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(t.Context(), to); !errors.Is(err, encryption.ErrDecrypt) {
		t.Errorf("Get of a value moved to another key: %v, want ErrDecrypt", err)
	}
}

// TestBroadList: a list across resources decrypts each item by its own
// key.
func TestBroadList(t *testing.T) {
	prefix := newPrefix()
	st := wrapped(t, prefix, aescbcK1)
	keys := []string{prefix + "core/secrets/ns/s", prefix + "shop.example.com/warehouses/w", prefix + "shop.example.com/widgets/ns/w"}
	for _, key := range keys {
		if _, err := st.Create(t.Context(), key, []byte(plain)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{prefix, prefix + "shop.example.com/", strings.TrimSuffix(prefix, "/")} {
		res, err := st.List(t.Context(), p, storage.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range res.Items {
			if string(kv.Value) != plain {
				t.Errorf("List(%s): %s = %q", p, kv.Key, kv.Value)
			}
		}
		if len(res.Items) == 0 {
			t.Errorf("List(%s): nothing", p)
		}
	}
}

// events reads n events from ch.
func events(t *testing.T, ch <-chan storage.Event, n int) []storage.Event {
	t.Helper()
	var out []storage.Event
	timeout := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("watch closed after %d events", len(out))
			}
			if ev.Type != storage.EventBookmark {
				out = append(out, ev)
			}
		case <-timeout:
			t.Fatalf("%d events of %d", len(out), n)
		}
	}
	return out
}

func TestWatch(t *testing.T) {
	for name, p := range map[string]func(prefix string) string{
		"resource":     func(prefix string) string { return prefix + "shop.example.com/widgets/" },
		"every object": func(prefix string) string { return prefix },
	} {
		t.Run(name, func(t *testing.T) {
			prefix := newPrefix()
			st := wrapped(t, prefix, aescbcK1)
			key := prefix + "shop.example.com/widgets/default/w"
			ch := st.Watch(t.Context(), p(prefix), 0)
			rev, err := st.Create(t.Context(), key, []byte(`{"v":1}`))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Update(t.Context(), key, []byte(`{"v":2}`), rev); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Delete(t.Context(), key, 0); err != nil {
				t.Fatal(err)
			}
			got := events(t, ch, 3)
			want := [][2]string{{`{"v":1}`, ``}, {`{"v":2}`, `{"v":1}`}, {`{"v":2}`, `{"v":2}`}}
			for i, ev := range got {
				if ev.Err != nil || string(ev.Value) != want[i][0] || string(ev.PrevValue) != want[i][1] {
					t.Errorf("event %d %s: value %q prev %q err %v, want %q %q", i, ev.Type, ev.Value, ev.PrevValue, ev.Err, want[i][0], want[i][1])
				}
			}
		})
	}
}

// TestWatchDecryptFailure: the watch ends with the error.
func TestWatchDecryptFailure(t *testing.T) {
	prefix := newPrefix()
	key := prefix + "shop.example.com/widgets/default/w"
	ch := wrapped(t, prefix, aescbcK2).Watch(t.Context(), prefix+"shop.example.com/widgets/", 0)
	if _, err := wrapped(t, prefix, aescbcK1).Create(t.Context(), key, []byte(plain)); err != nil {
		t.Fatal(err)
	}
	ev := events(t, ch, 1)[0]
	if !errors.Is(ev.Err, encryption.ErrDecrypt) || ev.Value != nil {
		t.Fatalf("event %+v, want only an error wrapping ErrDecrypt", ev)
	}
	select {
	case _, ok := <-ch:
		if ok {
			t.Error("the watch goes on after the error")
		}
	case <-time.After(10 * time.Second):
		t.Error("the watch is not closed after the error")
	}
}

// TestProgress: the watch cache's progress requests reach etcd.
func TestProgress(t *testing.T) {
	st := wrapped(t, newPrefix(), aescbcK1)
	pr, ok := st.(interface{ RequestProgress(context.Context) error })
	if !ok {
		t.Fatal("the wrapped etcd storage cannot request progress")
	}
	if err := pr.RequestProgress(t.Context()); err != nil {
		t.Fatal(err)
	}
}
