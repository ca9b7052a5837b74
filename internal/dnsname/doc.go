// Package dnsname says whether a string is a DNS-1123 label or subdomain,
// as k8s.io/apimachinery's validation does, without its regular
// expressions: the checks run on every request's namespace and every new
// object's name, and the library's messages are only needed when a check
// fails.
package dnsname
