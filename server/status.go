package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/server/auditlog"
)

// writeError is the one place an error becomes a response: an
// apierrors.APIStatus is written as its Status with its code; anything else
// is a 500 InternalError Status. Every answer with a 5xx code is logged and
// counted here, once (reportFailure).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	st := statusOf(err)
	if code := statusCode(st); code >= http.StatusInternalServerError {
		s.reportFailure(r, code, err)
	}
	writeStatus(w, r, st)
}

// statusOf is the Status that answers err.
func statusOf(err error) metav1.Status {
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		return api.Status()
	}
	return apierrors.NewInternalError(err).ErrStatus
}

// statusCode is the HTTP code of st: its Code, or when unset 200 for a
// Success and 500 for anything else.
func statusCode(st metav1.Status) int {
	switch {
	case st.Code != 0:
		return int(st.Code)
	case st.Status == metav1.StatusSuccess:
		return http.StatusOK
	}
	return http.StatusInternalServerError
}

// writeStatus writes st as a v1 Status with st.Code (500 when unset), in
// protobuf when the client prefers it and the resource offers it, else
// JSON, and gives it to the audit event: its reason and message are the
// responseStatus an error is logged with.
func writeStatus(w http.ResponseWriter, r *http.Request, st metav1.Status) {
	st.Kind, st.APIVersion = "Status", "v1"
	if st.Status == "" {
		st.Status = metav1.StatusFailure
	}
	code := statusCode(st)
	st.Code = int32(code)
	auditlog.LogResponseStatus(r.Context(), &st)
	if statusInProtobuf(r) {
		if body, err := encodeProtobuf(&st); err == nil {
			writeBody(w, code, contentTypeProtobuf, body)
			return
		}
	}
	body, err := json.Marshal(&st)
	if err != nil { // a Status always marshals; keep the answer a Status anyway
		body = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"InternalError","code":500}`)
		code = http.StatusInternalServerError
	}
	writeJSON(w, code, body)
}

func failure(code int32, reason metav1.StatusReason, message string) metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: message}
}

// notFoundStatus is the answer for a path that names nothing specd serves.
func notFoundStatus() metav1.Status {
	return failure(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
}

// methodNotAllowedStatus is the answer for a method a path does not serve;
// resource is plural.group, or "" outside the resource paths.
func methodNotAllowedStatus(method, resource string) metav1.Status {
	st := failure(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource")
	if resource != "" {
		st.Message = fmt.Sprintf("%s is not supported on resources of kind %q", strings.ToLower(method), resource)
	}
	return st
}

// verbNotServedStatus is the 405 for a verb a resource's schema does not
// list (x-specd-resource verbs), as kube-apiserver answers for a route it
// never installed; a watch of a resource that lists but does not watch
// names the verb and the resource, as kube's list handler does.
func verbNotServedStatus(verb, method, resource string) metav1.Status {
	if verb == "watch" {
		return methodNotAllowedStatus(verb, resource)
	}
	return methodNotAllowedStatus(method, "")
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	writeStatus(w, r, notFoundStatus())
}

func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	writeStatus(w, r, methodNotAllowedStatus(r.Method, ""))
}

func badRequest(format string, args ...any) error {
	return apierrors.NewBadRequest(fmt.Sprintf(format, args...))
}
