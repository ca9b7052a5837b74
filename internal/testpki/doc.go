// Package testpki makes the certificate authorities, keys and certificates
// that tests of authentication and TLS need: a CA a test owns, and
// certificates it signs, in memory. It also runs an OpenID provider
// (Issuer) on loopback: id tokens signed by a key of the test, the
// authorization code flow with PKCE, and refresh tokens, with a token
// lifetime the test chooses.
package testpki
