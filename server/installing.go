package server

import (
	"context"
	"strings"

	"github.com/specd-io/specd/schemas"
)

// installed is the registry to serve p from when reg holds the resource
// p names as installing (its CRD not Established when reg was loaded)
// and Config.Installed finds it Established since; nil otherwise.
func (s *Server) installed(ctx context.Context, reg *schemas.Registry, p resourcePath) *schemas.Registry {
	if s.cfg.Installed == nil {
		return nil
	}
	for _, plural := range pluralsIn(p.rest) {
		if rv := reg.Installing(p.group, p.version, plural); rv != nil {
			return s.cfg.Installed(ctx, rv.Resource)
		}
	}
	return nil
}

// pluralsIn are the resource names a path after /apis/G/V/ may start
// with: its first segment, and the third after namespaces/NS/. resolve
// tells which it is; these are only looked up.
func pluralsIn(rest string) []string {
	seg := strings.SplitN(rest, "/", 4)
	if len(seg) >= 3 && seg[0] == "namespaces" {
		return []string{seg[0], seg[2]}
	}
	return seg[:1]
}
