package converters

import (
	"testing"
	"testing/fstest"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/schemas"
)

// storedWithFiles: notes of news.example.com (v1, v1beta1) are stored
// with notices.shop.example.com, whose v1 has a field (priority) that
// news v1 lacks; news v1 has one (pinned) that the hub lacks. Every
// version is named v1 somewhere, so the bookkeeping of the two groups' v1
// must not be confused.
var storedWithFiles = fstest.MapFS{
	"shop/v1.yaml": {Data: []byte(`openapi: 3.0.3
info: {title: Shop, version: v1}
x-specd: {group: shop.example.com}
components:
  schemas:
    Note:
      type: object
      x-specd-resource: {plural: notices}
      properties:
        message: {type: string}
        priority: {type: integer}
`)},
	"news/v1.yaml": {Data: []byte(`openapi: 3.0.3
info: {title: News, version: v1}
x-specd: {group: news.example.com}
components:
  schemas:
    Note:
      type: object
      x-specd-resource:
        storageResource: notices.shop.example.com
        conversion:
          rules:
            - rename: {from: note, to: message}
      properties:
        note: {type: string}
        pinned: {type: boolean}
`)},
	"news/v1beta1.yaml": {Data: []byte(`openapi: 3.0.3
info: {title: News, version: v1beta1}
x-specd: {group: news.example.com}
components:
  schemas:
    Note:
      type: object
      x-specd-resource: {storageResource: notices.shop.example.com}
      properties:
        message: {type: string}
`)},
}

func storedWithSet(t *testing.T) (*Set, *schemas.Registry) {
	t.Helper()
	reg, err := schemas.LoadFS(storedWithFiles)
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet(reg, DeclaredRules)
	if err != nil {
		t.Fatal(err)
	}
	return set, reg
}

func TestSetStoredWith(t *testing.T) {
	set, _ := storedWithSet(t)
	const (
		hub    = `{"apiVersion":"shop.example.com/v1","kind":"Note","metadata":{"name":"n"},"message":"hi","priority":3}`
		newsV1 = `{"apiVersion":"news.example.com/v1","kind":"Note","metadata":{"name":"n"},"note":"hi","pinned":true}`
	)
	tests := map[string]struct {
		in, to string
		want   string // compared without the bookkeeping
	}{
		"hub to the other group": {in: hub, to: "news.example.com/v1",
			want: `{"apiVersion":"news.example.com/v1","kind":"Note","metadata":{"name":"n"},"note":"hi"}`},
		"the other group to the hub": {in: newsV1, to: "shop.example.com/v1",
			want: `{"apiVersion":"shop.example.com/v1","kind":"Note","metadata":{"name":"n"},"message":"hi"}`},
		"between the other group's versions": {in: newsV1, to: "news.example.com/v1beta1",
			want: `{"apiVersion":"news.example.com/v1beta1","kind":"Note","metadata":{"name":"n"},"message":"hi"}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := set.Convert([]byte(tc.in), tc.to)
			if err != nil {
				t.Fatal(err)
			}
			shown, _, err := SplitBookkeeping(got)
			if err != nil {
				t.Fatal(err)
			}
			mustEqualJSON(t, "converted", string(shown), tc.want)
			back, err := set.Convert(got, gjson.Get(tc.in, "apiVersion").Str)
			if err != nil {
				t.Fatal(err)
			}
			mustEqualJSON(t, "back", string(back), tc.in)
		})
	}
}

// TestSetStoredWithBookkeeping: a hub object carries what news v1 alone
// holds under news v1's apiVersion, and a news v1 object what the hub v1
// alone holds under the hub's version: the two v1 never meet.
func TestSetStoredWithBookkeeping(t *testing.T) {
	set, _ := storedWithSet(t)
	in := `{"apiVersion":"news.example.com/v1","kind":"Note","metadata":{"name":"n"},"note":"hi","pinned":true}`
	hub, err := set.Convert([]byte(in), "shop.example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	_, bk, _ := SplitBookkeeping(hub)
	if !gjson.Get(bk, `news\.example\.com/v1`).Exists() || gjson.Get(bk, "v1").Exists() {
		t.Errorf("hub bookkeeping %s, want news.example.com/v1's entry only", bk)
	}
	hub, err = sjson.SetRawBytes(hub, "priority", []byte("3"))
	if err != nil {
		t.Fatal(err)
	}
	news, err := set.Convert(hub, "news.example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	_, bk, _ = SplitBookkeeping(news)
	if !gjson.Get(bk, "v1.cut").Exists() || gjson.Get(bk, `news\.example\.com/v1`).Exists() {
		t.Errorf("news v1 bookkeeping %s, want the hub's v1 entry (priority) only", bk)
	}
	mustEqualJSON(t, "pinned restored", gjson.GetBytes(news, "pinned").Raw, "true")
}

// TestSetStoredWithRoundTrip: the hub's round trip goes through the
// versions of the resource stored with it too.
func TestSetStoredWithRoundTrip(t *testing.T) {
	set, reg := storedWithSet(t)
	hub := reg.Lookup("shop.example.com", "v1", "notices")
	if n := len(set.byHub[[2]string{"shop.example.com/v1", "Note"}]); n != 2 {
		t.Fatalf("the hub round-trips through %d spokes, want 2 (news v1 and v1beta1)", n)
	}
	obj := `{"apiVersion":"shop.example.com/v1","kind":"Note","metadata":{"name":"n"},"message":"hi","priority":3}`
	if path, err := set.RoundTrip(hub, []byte(obj)); path != "" || err != nil {
		t.Errorf("round trip: %q, %v", path, err)
	}
	spoke := reg.Lookup("news.example.com", "v1", "notes")
	obj = `{"apiVersion":"news.example.com/v1","kind":"Note","metadata":{"name":"n"},"note":"hi","pinned":false}`
	if path, err := set.RoundTrip(spoke, []byte(obj)); path != "" || err != nil {
		t.Errorf("round trip: %q, %v", path, err)
	}
}

func TestSetStoredWithUnknown(t *testing.T) {
	set, _ := storedWithSet(t)
	obj := `{"apiVersion":"news.example.com/v1","kind":"Note","metadata":{"name":"n"}}`
	if _, err := set.Convert([]byte(obj), "other.example.com/v1"); err == nil {
		t.Error("converted to a group that does not store the kind")
	}
}
