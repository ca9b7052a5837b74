package docs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/specd-io/specd/internal/testhttp"
)

// revisionShift maps the resourceVersions a page's examples show onto the
// server's. The pages count them as on a store that holds nothing else
// (the first write is "2"), but a fresh specd has already stored its
// default RBAC roles and its namespaces: every number is larger by what
// those took, read from the store rather than counted, so that what
// specd writes at start may change.
type revisionShift int64

// revisionPatterns find the resourceVersions of an example: in bodies, in
// query strings and in the messages that quote them.
var revisionPatterns = []*regexp.Regexp{
	regexp.MustCompile(`("resourceVersion":\s*")([1-9][0-9]*)(")`),
	regexp.MustCompile(`([?&]resourceVersion=)([1-9][0-9]*)()`),
	regexp.MustCompile(`(resource version: )([1-9][0-9]*)()`),
	regexp.MustCompile(`(, current: )([1-9][0-9]*)()`),
}

// continuePattern finds continue tokens, which hold the revision their
// pages are read at.
var continuePattern = regexp.MustCompile(`((?:"continue":\s*"|[?&]continue=))([A-Za-z0-9_-]{8,})`)

// token is a continue token (unpadded base64url of JSON) with its "rv"
// shifted; what does not decode is left as it is.
func (s revisionShift) token(t string) string {
	raw, err := base64.RawURLEncoding.DecodeString(t)
	if err != nil {
		return t
	}
	shifted := tokenRevision.ReplaceAllStringFunc(string(raw), func(m string) string {
		n, _ := strconv.ParseInt(tokenRevision.FindStringSubmatch(m)[1], 10, 64)
		return `"rv":` + strconv.FormatInt(n+int64(s), 10)
	})
	return base64.RawURLEncoding.EncodeToString([]byte(shifted))
}

var tokenRevision = regexp.MustCompile(`"rv":([0-9]+)`)

// startRevision reads the store's revision before a page's first step
// (the page's "1"), once the writes specd makes just after it is ready
// have settled: the elected replica's first jobs (the leader key, the
// namespaces it adopts) may land after /readyz answers.
func startRevision(ctx context.Context, client *http.Client, base string) (revisionShift, error) {
	last, err := storeRevision(ctx, client, base)
	for i := 0; err == nil && i < 40; i++ {
		time.Sleep(250 * time.Millisecond)
		var rv int64
		if rv, err = storeRevision(ctx, client, base); err == nil && rv == last {
			return revisionShift(rv - 1), nil
		}
		last = rv
	}
	if err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("the store's revision still moves after 10 s (at %d)", last)
}

// storeRevision is the store's current revision, as a list answers it.
func storeRevision(ctx context.Context, client *http.Client, base string) (int64, error) {
	r, err := testhttp.Send(ctx, client, testhttp.Request{URL: base + "/apis/rbac.authorization.k8s.io/v1/clusterroles?limit=1"})
	if err != nil {
		return 0, err
	}
	var list struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(r.Body), &list); err != nil {
		return 0, fmt.Errorf("the store's revision: %d: %w", r.Code, err)
	}
	rv, err := strconv.ParseInt(list.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the store's revision: %w", err)
	}
	return rv, nil
}

// example is ex with every resourceVersion it sends or expects shifted.
func (s revisionShift) example(ex *httpExample) *httpExample {
	out := *ex
	out.Target, out.Body, out.WantBody = s.text(ex.Target), s.text(ex.Body), s.text(ex.WantBody)
	return &out
}

func (s revisionShift) text(v string) string {
	v = continuePattern.ReplaceAllStringFunc(v, func(m string) string {
		g := continuePattern.FindStringSubmatch(m)
		return g[1] + s.token(g[2])
	})
	for _, re := range revisionPatterns {
		v = re.ReplaceAllStringFunc(v, func(m string) string {
			g := re.FindStringSubmatch(m)
			n, _ := strconv.ParseInt(g[2], 10, 64)
			return g[1] + strconv.FormatInt(n+int64(s), 10) + g[3]
		})
	}
	return v
}
