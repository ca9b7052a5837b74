package chart

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// shopSchemas are the example shop.example.com schema files, as a
// ConfigMap holds them: flat, by file name.
func shopSchemas(t *testing.T) map[string]any {
	t.Helper()
	files := map[string]any{}
	for _, name := range []string{"v1.yaml", "v2beta1.yaml"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "schemas", "shop.example.com", name))
		if err != nil {
			t.Fatal(err)
		}
		files["shop-"+name] = string(data)
	}
	return files
}

// shopGroups are the aggregated groups of the shop schemas.
var shopGroups = []any{map[string]any{"name": "shop.example.com", "versions": []any{"v1", "v2beta1"}, "groupPriorityMinimum": 2000, "versionPriority": 20}}

const testCA = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"

// standaloneValues, replicatedValues and aggregatedValues are each mode
// with the options a user of it would set; more overrides them.
func standaloneValues(t *testing.T, more map[string]any) map[string]any {
	v := map[string]any{
		"mode":    "standalone",
		"schemas": map[string]any{"files": shopSchemas(t)},
		"audit":   map[string]any{"enabled": true},
		"backup":  map[string]any{"enabled": true, "volume": map[string]any{"persistentVolumeClaim": map[string]any{"claimName": "specd-backups"}}},
	}
	maps.Copy(v, more)
	return v
}

func replicatedValues(more map[string]any) map[string]any {
	v := map[string]any{
		"mode":     "replicated",
		"replicas": 3,
		"etcd": map[string]any{
			"servers":   []any{"https://etcd-0.etcd:2379", "https://etcd-1.etcd:2379", "https://etcd-2.etcd:2379"},
			"tlsSecret": "etcd-client",
		},
		"schemas": map[string]any{"configMap": "my-schemas"},
		"tls":     map[string]any{"source": "certManager"},
		"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true,
			"authorization": map[string]any{"type": "Bearer", "credentials": map[string]any{"name": "prometheus-token", "key": "token"}}}},
	}
	maps.Copy(v, more)
	return v
}

func aggregatedValues(t *testing.T, more map[string]any) map[string]any {
	v := map[string]any{
		"mode":       "aggregated",
		"schemas":    map[string]any{"files": shopSchemas(t)},
		"aggregated": map[string]any{"groups": shopGroups},
	}
	maps.Copy(v, more)
	return v
}
