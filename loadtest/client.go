package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const userAgent = "specd-bench"

// client sends Kubernetes-style REST requests for one resource collection.
type client struct {
	http       *http.Client
	base       string // scheme://host[:port][/prefix], no trailing slash
	collection string // /apis/G/V[/namespaces/NS]/PLURAL
	ns         string
	timeout    time.Duration
}

// newClient builds one tuned http.Client for the whole run: keep-alive with
// enough idle connections for every worker, and, with --kubeconfig, the
// kubeconfig's TLS and credentials (bearer token, client certificate, exec).
func newClient(cfg Config) (*client, error) {
	idle := 2 * cfg.Concurrency
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          idle,
		MaxIdleConnsPerHost:   idle,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	c := &client{
		http:       &http.Client{Transport: transport},
		base:       strings.TrimSuffix(cfg.Server, "/"),
		collection: collectionPath(cfg),
		ns:         cfg.Namespace,
		timeout:    cfg.RequestTimeout,
	}
	if cfg.Kubeconfig == "" {
		return c, nil
	}
	override := ""
	if cfg.serverSet {
		override = cfg.Server
	}
	rc, err := clientcmd.BuildConfigFromFlags(override, cfg.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loadtest: kubeconfig %s: %w", cfg.Kubeconfig, err)
	}
	if transport.TLSClientConfig, err = rest.TLSConfigFor(rc); err != nil {
		return nil, fmt.Errorf("loadtest: kubeconfig %s: TLS: %w", cfg.Kubeconfig, err)
	}
	if c.http.Transport, err = rest.HTTPWrappersForConfig(rc, transport); err != nil {
		return nil, fmt.Errorf("loadtest: kubeconfig %s: credentials: %w", cfg.Kubeconfig, err)
	}
	u, _, err := rest.DefaultServerUrlFor(rc)
	if err != nil {
		return nil, fmt.Errorf("loadtest: kubeconfig %s: server: %w", cfg.Kubeconfig, err)
	}
	c.base = strings.TrimSuffix(u.String(), "/")
	return c, nil
}

// collectionPath is the REST path of the resource collection.
func collectionPath(cfg Config) string {
	p := "/apis/" + cfg.Group + "/" + cfg.Version
	if cfg.Group == "" {
		p = "/api/" + cfg.Version
	}
	if cfg.Namespace != "" {
		p += "/namespaces/" + cfg.Namespace
	}
	return p + "/" + cfg.Resource
}

// namespace is the namespace of the objects, empty when cluster-scoped.
func (c *client) namespace() string { return c.ns }

// itemPath is the REST path of one named object.
func (c *client) itemPath(name string) string { return c.collection + "/" + name }

// do sends one request and reads the whole response body, so the
// connection goes back to the keep-alive pool. err is set only when there
// is no HTTP response.
func (c *client) do(ctx context.Context, method, path string, query url.Values, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.newRequest(ctx, method, path, query, body)
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	return resp.StatusCode, respBody, nil
}

// newRequest is a JSON request of path with query and body (none when
// nil).
func (c *client) newRequest(ctx context.Context, method, path string, query url.Values, body []byte) (*http.Request, error) {
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// close drops the idle connections at the end of the run.
func (c *client) close() { c.http.CloseIdleConnections() }
