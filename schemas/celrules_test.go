package schemas

import (
	"context"
	"testing"
)

// ruleWidget is a Widget whose spec, declared apart and reached by $ref,
// carries the given x-kubernetes-validations (flow YAML).
func ruleWidget(rules string) string {
	return "Widget:\n  type: object\n  x-specd-resource: {}\n  properties:\n    spec: {$ref: '#/components/schemas/WidgetSpec'}\n" +
		"WidgetSpec:\n  type: object\n  properties: {min: {type: integer}, max: {type: integer}, tags: {type: array, items: {type: string}}}\n" +
		"  x-kubernetes-validations: " + rules + "\n"
}

// A rule that does not compile or costs too much is a load problem named
// by file and pointer, where the rule is written.
func TestLoadRefusesRules(t *testing.T) {
	files := map[string]string{
		"shop/v1.yaml": gv("shop.example.com", "v1", ruleWidget(`[{rule: "self.min <= self.maximum"}, {rule: "self.tags.all(x, self.tags.all(y, x == y))"}]`)),
	}
	matchProblems(t, loadProblems(t, files), []want{
		{"shop/v1.yaml", "/components/schemas/WidgetSpec/x-kubernetes-validations/0/rule", "compilation failed: ERROR: <input>:1:17: undefined field 'maximum'"},
		{"shop/v1.yaml", "/components/schemas/WidgetSpec/x-kubernetes-validations/1/rule", "estimated rule cost exceeds budget by factor of more than 100x"},
		{"shop/v1.yaml", "/components/schemas/WidgetSpec/x-kubernetes-validations/1/rule", "contributed to estimated rule cost total exceeding cost limit"},
		{"shop/v1.yaml", "/components/schemas/Widget", "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget"},
	})
}

// The rules are compiled at load and kept with the schema.
func TestLoadKeepsRules(t *testing.T) {
	reg, err := LoadFS(mapFS(map[string]string{
		"shop/v1.yaml": gv("shop.example.com", "v1", ruleWidget(`[{rule: "self.min <= self.max", message: "min must not exceed max"}]`)),
	}))
	if err != nil {
		t.Fatal(err)
	}
	rv := reg.Lookup("shop.example.com", "v1", "widgets")
	obj := map[string]any{"spec": map[string]any{"min": int64(3), "max": int64(2)}}
	errs, _ := rv.Schema.ValidateRules(context.Background(), obj, nil, nil)
	if len(errs) != 1 || errs[0].Error() != "spec: Invalid value: min must not exceed max" {
		t.Errorf("got %v, want the rule's error", errs)
	}
}
