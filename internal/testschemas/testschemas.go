package testschemas

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"
)

//go:embed files
var files embed.FS

// The stable files, as they are in files/.
var (
	// Tools is tools.example.com/v1 with Hammer (spec.weight integer).
	Tools = mustRead("files/tools-v1.yaml")
	// Things is things.example.com/v1alpha1 with Thing (spec.label string).
	Things = mustRead("files/things-v1alpha1.yaml")
)

var (
	gadgetsTmpl = template.Must(template.ParseFS(files, "files/gadgets.yaml.tmpl"))
	gizmosTmpl  = template.Must(template.ParseFS(files, "files/gizmos-v*.yaml.tmpl"))
)

func mustRead(name string) string {
	data, err := files.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// GadgetOptions are the parts of the Gadget file that tests change; the
// zero value is gadgets.example.com/v1 with spec.size, x-specd-resource {}.
type GadgetOptions struct {
	// Kind names the resource; "" is Gadget. Another kind is served in a
	// group of its own, its plural in lower case (Gizmo:
	// gizmos.example.com), for a test that must not meet Gadget.
	Kind    string
	Version string // "" is v1
	// XSpecd is spliced into x-specd after the group, such as
	// ", allowBreaking: true".
	XSpecd string
	// Resource is the x-specd-resource (flow YAML); "" is {}.
	Resource string
	// Props are spec's properties, one flow YAML line each ("color: {type:
	// string}"); nil is SizeProp alone.
	Props []string
}

// Spec properties of Gadget that tests add or remove.
const (
	SizeProp  = "size: {type: integer}"
	ColorProp = "color: {type: string}"
)

// Gadgets returns the schema file of gadgets.example.com with Gadget, or
// of o.Kind in its own group.
func Gadgets(o GadgetOptions) string {
	if o.Kind == "" {
		o.Kind = "Gadget"
	}
	if o.Version == "" {
		o.Version = "v1"
	}
	if o.Resource == "" {
		o.Resource = "{}"
	}
	if o.Props == nil {
		o.Props = []string{SizeProp}
	}
	return render(gadgetsTmpl, "gadgets.yaml.tmpl", struct {
		GadgetOptions
		Group string
	}{o, strings.ToLower(o.Kind) + "s.example.com"})
}

// render executes the template name of set; the templates are fixed, so
// an error is a bug of this package.
func render(set *template.Template, name string, data any) string {
	var b strings.Builder
	if err := set.ExecuteTemplate(&b, name, data); err != nil {
		panic(err)
	}
	return b.String()
}

// Gadget is a Gadget object of the given version (spec.size 1).
func Gadget(version, name string) string {
	return fmt.Sprintf(`{"apiVersion":"gadgets.example.com/%s","kind":"Gadget","metadata":{"name":%q},"spec":{"size":1}}`, version, name)
}

// Hammer is a Hammer object (spec.weight 3).
func Hammer(name string) string {
	return fmt.Sprintf(`{"apiVersion":"tools.example.com/v1","kind":"Hammer","metadata":{"name":%q},"spec":{"weight":3}}`, name)
}

// WriteFiles writes each of files (name -> content) into dir, as a user
// drops schema files into the schema directory; an empty content removes
// the file instead.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if content == "" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
