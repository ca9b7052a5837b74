package main

import (
	"net/http"

	"github.com/specd-io/specd/server/console"
)

// console is the handler of /console/, or nil with --console=false.
func (c serveConfig) console() http.Handler {
	if !c.Console {
		return nil
	}
	return console.Handler()
}
