// Package testpki makes the certificate authorities, keys and certificates
// that tests of authentication and TLS need: a CA a test owns, and
// certificates it signs, in memory.
package testpki
