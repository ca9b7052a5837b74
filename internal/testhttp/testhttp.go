package testhttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Timeout bounds one request of Do: none a test waits for takes longer.
const Timeout = time.Minute

// Request is one HTTP request of a test.
type Request struct {
	Method string // GET when empty
	URL    string
	// ContentType is sent when set.
	ContentType string
	// Accept is application/json when empty.
	Accept string
	// Token, when set, is sent as a bearer token.
	Token string
	// Header is more headers to send (Impersonate-User).
	Header http.Header
	Body   string
	// Stream says a 200 answer is a stream, a watch's, whose body is
	// left unread: it would last until the watch times out.
	Stream bool
}

// Result is the answer to a Request.
type Result struct {
	Code   int
	Header http.Header
	Body   string
}

// Do sends r with client, bounded by the test and by Timeout, and reads
// the whole answer; a request that gets no answer fails the test. Call it
// from the test's goroutine; other goroutines call Send.
func Do(t testing.TB, client *http.Client, r Request) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), Timeout)
	defer cancel()
	res, err := Send(ctx, client, r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Send sends r with client and reads the whole answer. It fails no test:
// a request that gets no answer is an error naming it.
func Send(ctx context.Context, client *http.Client, r Request) (Result, error) {
	req, err := r.build(ctx)
	if err != nil {
		return Result{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Result{}, fmt.Errorf("%s %s: %w", req.Method, r.URL, err)
	}
	defer resp.Body.Close()
	res := Result{Code: resp.StatusCode, Header: resp.Header}
	if r.Stream && resp.StatusCode == http.StatusOK {
		return res, nil
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return res, fmt.Errorf("%s %s: read body: %w", req.Method, r.URL, err)
	}
	res.Body = string(b)
	return res, nil
}

// build is r as an http.Request under ctx.
func (r Request) build(ctx context.Context) (*http.Request, error) {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.URL, body)
	if err != nil {
		return nil, err
	}
	for name, values := range r.Header {
		req.Header[name] = values
	}
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	accept := r.Accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	return req, nil
}
