package console

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxCode bounds the body of a redemption: a code is 52 characters.
const maxCode = 256

// redeem answers a login link's code (the request's body) with
// {"token", "expires"}, or a 403 Status that does not say why.
func redeem(w http.ResponseWriter, r *http.Request, login Login) {
	code, err := io.ReadAll(io.LimitReader(r.Body, maxCode))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "read the login code: "+err.Error())
		return
	}
	token, expires, err := login.Redeem(string(code))
	if err != nil {
		writeStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, "the login link is wrong, used or expired: log in another way, or restart specd for a new link")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"token": token, "expires": expires.UTC().Format(time.RFC3339)})
}

func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: msg})
}
