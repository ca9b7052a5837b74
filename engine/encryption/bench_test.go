package encryption_test

import (
	"context"
	"testing"

	"github.com/specd-io/specd/engine/encryption"
	"github.com/specd-io/specd/engine/storage"
)

// fixed is a storage whose every Get answers one value: what the
// benchmarks measure is the wrapping alone.
type fixed struct {
	storage.Storage
	kv storage.KeyValue
}

func (f fixed) Get(context.Context, string) (storage.KeyValue, error) { return f.kv, nil }

// BenchmarkGet is the cost the encrypting Storage adds to a read of a 1 KiB
// object: none for a resource the file does not name but finding that
// out, and the decryption of each provider for one it does.
func BenchmarkGet(b *testing.B) {
	obj := make([]byte, 1024)
	for i := range obj {
		obj[i] = 'x'
	}
	const key = "/specd/shop.example.com/widgets/default/w"
	for name, providers := range map[string]string{
		"not-covered": "",
		"identity":    "[{identity: {}}]",
		"aescbc":      aescbcK1,
		"aesgcm":      "[{aesgcm: {keys: [{name: g, secret: " + key2 + "}]}}]",
		"secretbox":   "[{secretbox: {keys: [{name: b, secret: " + key2 + "}]}}]",
	} {
		b.Run(name, func(b *testing.B) {
			resource, p := "widgets.shop.example.com", providers
			if p == "" {
				resource, p = "secrets", aescbcK1
			}
			c := mustLoad(b, "- resources: ["+resource+"]\n  providers: "+p+"\n")
			value := encrypted(b, c, key, obj)
			st := encryption.Wrap(fixed{kv: storage.KeyValue{Key: key, Value: value}}, c, "/specd/")
			b.SetBytes(int64(len(obj)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := st.Get(b.Context(), key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// capture is a storage that keeps the value of its last Create.
type capture struct {
	storage.Storage
	value []byte
}

func (c *capture) Create(_ context.Context, _ string, v []byte) (int64, error) {
	c.value = v
	return 1, nil
}

// encrypted is obj as the Storage of c stores it under key.
func encrypted(b *testing.B, c *encryption.Config, key string, obj []byte) []byte {
	b.Helper()
	cp := &capture{}
	if _, err := encryption.Wrap(cp, c, "/specd/").Create(b.Context(), key, obj); err != nil {
		b.Fatal(err)
	}
	return cp.value
}
