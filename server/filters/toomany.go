package filters

import (
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// tooManyRequestsMessage is what kube's limiting filters say.
const tooManyRequestsMessage = "Too many requests, please try again later."

// withTooManyRequestsStatus puts h behind limit, a filter of kube's that
// refuses a request with 429, Retry-After and a line of text
// (max-in-flight, priority and fairness), and answers that refusal with a
// Status instead: reason TooManyRequests, kube's message, and
// details.retryAfterSeconds, which clients read as they read Retry-After.
// A request limit lets through reaches h with the writer it came with.
func withTooManyRequestsStatus(limit func(http.Handler) http.Handler, h http.Handler, ser runtime.NegotiatedSerializer) http.Handler {
	limited := limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rw, ok := w.(*refusalWriter); ok {
			rw.admitted = true
			w = rw.ResponseWriter
		}
		h.ServeHTTP(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limited.ServeHTTP(&refusalWriter{ResponseWriter: w, r: r, ser: ser}, r)
	})
}

// refusalWriter turns the limit's text 429 into a Status; once the
// request is admitted it is not written to any more.
type refusalWriter struct {
	http.ResponseWriter
	r        *http.Request
	ser      runtime.NegotiatedSerializer
	admitted bool
	refused  bool
}

func (rw *refusalWriter) WriteHeader(code int) {
	if rw.admitted || code != http.StatusTooManyRequests {
		rw.ResponseWriter.WriteHeader(code)
		return
	}
	rw.refused = true
	h := rw.Header()
	retryAfter, _ := strconv.Atoi(h.Get("Retry-After"))
	h.Del("Content-Type")
	h.Del("X-Content-Type-Options")
	var gv schema.GroupVersion
	if info, ok := request.RequestInfoFrom(rw.r.Context()); ok {
		gv = schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
	}
	responsewriters.ErrorNegotiated(apierrors.NewTooManyRequests(tooManyRequestsMessage, max(retryAfter, 1)), rw.ser, gv, rw.ResponseWriter, rw.r)
}

func (rw *refusalWriter) Write(b []byte) (int, error) {
	if rw.refused {
		return len(b), nil // the limit's line of text
	}
	return rw.ResponseWriter.Write(b)
}

func (rw *refusalWriter) Unwrap() http.ResponseWriter { return rw.ResponseWriter }
