package console

import (
	"fmt"
	"net/url"
	"sync"

	"github.com/chromedp/cdproto/network"
)

// sentRequest is one request a page sent, as the browser reports it.
type sentRequest struct {
	Method, Accept string
	URL            *url.URL
	Status         int64 // 0 until the answer's head arrives
	Canceled       bool  // the page ended it (an aborted fetch)
	Failed         bool  // it failed, canceled or not
}

func (r sentRequest) String() string {
	return fmt.Sprintf("%s %s (%d, canceled %v)", r.Method, r.URL, r.Status, r.Canceled)
}

// netLog records the requests a tab's pages send, from the browser's
// Network events (chromedp enables them in every tab).
type netLog struct {
	mu   sync.Mutex
	byID map[network.RequestID]*sentRequest
	all  []*sentRequest
}

func newNetLog() *netLog {
	return &netLog{byID: map[network.RequestID]*sentRequest{}}
}

// listen is a chromedp listener of the tab.
func (n *netLog) listen(ev any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		u, err := url.Parse(e.Request.URL)
		if err != nil {
			return
		}
		accept, _ := e.Request.Headers["Accept"].(string)
		r := &sentRequest{Method: e.Request.Method, Accept: accept, URL: u}
		n.byID[e.RequestID] = r
		n.all = append(n.all, r)
	case *network.EventResponseReceived:
		if r := n.byID[e.RequestID]; r != nil {
			r.Status = e.Response.Status
		}
	case *network.EventLoadingFailed:
		if r := n.byID[e.RequestID]; r != nil {
			r.Canceled, r.Failed = e.Canceled, true
		}
	}
}

// reset forgets the requests recorded so far.
func (n *netLog) reset() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.byID = map[network.RequestID]*sentRequest{}
	n.all = nil
}

// find answers copies of the requests that match, in the order sent.
func (n *netLog) find(match func(*sentRequest) bool) []sentRequest {
	n.mu.Lock()
	defer n.mu.Unlock()
	var found []sentRequest
	for _, r := range n.all {
		if match(r) {
			found = append(found, *r)
		}
	}
	return found
}

// lists matches the GETs of path that are lists, not watches.
func lists(path string) func(*sentRequest) bool {
	return func(r *sentRequest) bool {
		return r.Method == "GET" && r.URL.Path == path && r.URL.Query().Get("watch") == ""
	}
}

// watches matches the GETs of path that are watches.
func watches(path string) func(*sentRequest) bool {
	return func(r *sentRequest) bool {
		return r.Method == "GET" && r.URL.Path == path && r.URL.Query().Get("watch") == "true"
	}
}
