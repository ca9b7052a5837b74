// Package deps pins the modules the packages under construction import, so
// go.mod stays stable while they are written. Removed once they import them.
package deps

import (
	_ "github.com/getkin/kin-openapi/openapi3"
	_ "github.com/google/uuid"
	_ "github.com/gorilla/mux"
	_ "github.com/hashicorp/go-plugin"
	_ "github.com/tidwall/gjson"
	_ "github.com/tidwall/sjson"
	_ "go.etcd.io/etcd/client/v3"
	_ "go.etcd.io/etcd/server/v3/embed"
	_ "k8s.io/apimachinery/pkg/api/errors"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1"
	_ "k8s.io/apimachinery/pkg/labels"
	_ "k8s.io/apimachinery/pkg/util/validation"
	_ "k8s.io/apimachinery/pkg/util/validation/field"
	_ "k8s.io/client-go/dynamic"
	_ "k8s.io/client-go/discovery"
	_ "k8s.io/client-go/tools/clientcmd"
	_ "sigs.k8s.io/json"
	_ "sigs.k8s.io/yaml"
)
