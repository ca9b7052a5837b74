package schemas

import (
	"strconv"
	"strings"
	"testing"
)

// withAPIService is a file of version, storing Widgets when it is v1,
// with x-specd.apiService set to flow.
func withAPIService(version, flow string) string {
	return strings.Replace(gv("shop.example.com", version, widget("Widget", "{storage: "+strconv.FormatBool(version == "v1")+"}")),
		"x-specd: {group: shop.example.com}", "x-specd: {group: shop.example.com, apiService: "+flow+"}", 1)
}

func TestAPIServicePriority(t *testing.T) {
	reg, err := LoadFS(mapFS(map[string]string{
		"v1.yaml": withAPIService("v1", "{groupPriorityMinimum: 2000, versionPriority: 20}"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.GroupVersion("shop.example.com", "v1").APIService; got != (APIServicePriority{2000, 20}) {
		t.Fatalf("APIService %+v", got)
	}
	reg, err = LoadFS(mapFS(map[string]string{"v1.yaml": gv("shop.example.com", "v1", widget("Widget", "{storage: true}"))}))
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.GroupVersion("shop.example.com", "v1").APIService; got != (APIServicePriority{}) {
		t.Fatalf("no apiService: %+v", got)
	}
}

func TestAPIServicePriorityProblems(t *testing.T) {
	got := loadProblems(t, map[string]string{
		"v1.yaml": withAPIService("v1", "{groupPriorityMinimum: 0, versionPriority: 1001, weight: 3}"),
		"v2.yaml": withAPIService("v2", "{groupPriorityMinimum: high}"),
	})
	matchProblems(t, got, []want{
		{"v1.yaml", "/x-specd/apiService/groupPriorityMinimum", "must be 1 to 20000, not 0"},
		{"v1.yaml", "/x-specd/apiService/versionPriority", "must be 1 to 1000, not 1001"},
		{"v1.yaml", "/x-specd/apiService/weight", `unknown field "weight"`},
		{"v2.yaml", "/x-specd/apiService/groupPriorityMinimum", "must be a 32-bit integer"},
	})
}
