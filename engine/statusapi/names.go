package statusapi

import (
	"path/filepath"
	"strings"
)

// fileName is how a file is shown: relative to the schema directory when
// it is in it (the server's own paths are no one's business), else as
// the loader names it (builtin/..., customresourcedefinitions/NAME).
func (p *publisher) fileName(name string) string {
	if name == "" || p.cfg.SchemaDir == "" {
		return name
	}
	rel, err := filepath.Rel(p.cfg.SchemaDir, name)
	if err != nil || strings.HasPrefix(rel, "..") {
		return name
	}
	return filepath.ToSlash(rel)
}

// inMessage is msg with the schema directory left out of the paths it
// quotes, as fileName shows them.
func (p *publisher) inMessage(msg string) string {
	if p.cfg.SchemaDir == "" {
		return msg
	}
	return strings.ReplaceAll(msg, filepath.Clean(p.cfg.SchemaDir)+string(filepath.Separator), "")
}

// objectName makes a file's path an object name: a path segment, lower
// case, its slashes turned into dots ("shop/v1.yaml" is "shop.v1.yaml").
func objectName(path string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(path) {
		switch {
		case r == '/':
			b.WriteByte('.')
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), ".-")
	if name == "" {
		return "file"
	}
	return name
}

// sourceOf says where a file (as shown) comes from.
func sourceOf(path string) string {
	switch {
	case strings.HasPrefix(path, "builtin/"):
		return "Builtin"
	case strings.HasPrefix(path, "customresourcedefinitions/"):
		return "CustomResourceDefinition"
	}
	return "Directory"
}
