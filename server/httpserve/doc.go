// Package httpserve runs an http.Server for specd's API on a listener it
// is given, over TLS or plain HTTP, until its context ends, then shuts it
// down gracefully. It owns what the API's connections need beyond
// net/http's defaults: the open watches end on shutdown (they never end
// by themselves), and a connection whose write timed out is reset when
// closed (package resetconn), so that a watch client that stopped
// reading sees its end.
package httpserve
