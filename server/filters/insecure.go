package filters

import (
	"net/http"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
)

// UnsecuredUser is who every request is with --insecure-serving, as on
// kube-apiserver's old insecure port.
const UnsecuredUser = "system:unsecured"

var unsecured = &authenticator.Response{User: &user.DefaultInfo{
	Name: UnsecuredUser, Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated},
}}

// insecureAuthenticator accepts every request as system:unsecured.
type insecureAuthenticator struct{}

func (insecureAuthenticator) AuthenticateRequest(*http.Request) (*authenticator.Response, bool, error) {
	return unsecured, true, nil
}
