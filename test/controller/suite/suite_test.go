package suite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/specd-io/specd/specdtest"
)

// crds is the CRD directory the suite serves, as an operator's
// config/crd/bases.
var crds = filepath.Join("..", "..", "..", "examples", "crds")

var robots = schema.GroupVersionResource{Group: "toys.example.com", Version: "v1", Resource: "robots"}

// cfg reaches the specd TestMain started, as its admin.
var cfg *rest.Config

func TestMain(m *testing.M) {
	env := &specdtest.Environment{Schemas: crds}
	var err error
	if cfg, err = env.Start(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	env.Stop()
	os.Exit(code)
}

func robot(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "toys.example.com/v1", "kind": "Robot",
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

// TestCreateAndGet writes a Robot through a client built from the
// rest.Config and reads it back.
func TestCreateAndGet(t *testing.T) {
	client := dynamic.NewForConfigOrDie(cfg).Resource(robots).Namespace("default")
	if _, err := client.Create(t.Context(), robot("r2d2", map[string]any{"cells": int64(2), "remote": "ir"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := client.Get(t.Context(), "r2d2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cells, _, _ := unstructured.NestedInt64(got.Object, "spec", "cells"); cells != 2 {
		t.Errorf("spec.cells is %d, want 2: %v", cells, got.Object)
	}
}

// TestSchemaRefuses: the CRD's schema is served, so a Robot with both a
// remote and a wire is Invalid.
func TestSchemaRefuses(t *testing.T) {
	client := dynamic.NewForConfigOrDie(cfg).Resource(robots).Namespace("default")
	_, err := client.Create(t.Context(), robot("confused", map[string]any{"cells": int64(1), "remote": "ir", "wire": "usb"}), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("created a Robot with a remote and a wire: %v", err)
	}
}

// TestStartForOneTest: specdtest.Start gives a test a specd of its own,
// and stops it when the test ends.
func TestStartForOneTest(t *testing.T) {
	var own *rest.Config
	t.Run("own", func(t *testing.T) {
		own = specdtest.Start(t, crds)
		if own.Host == cfg.Host {
			t.Fatalf("the test's specd is the suite's, at %s", own.Host)
		}
		list, err := dynamic.NewForConfigOrDie(own).Resource(robots).Namespace("default").List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 0 {
			t.Errorf("a new specd holds %d robots", len(list.Items))
		}
	})
	if own == nil {
		return
	}
	client, err := rest.HTTPClientFor(own)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := client.Get(own.Host + "/readyz"); err == nil {
		resp.Body.Close()
		t.Errorf("the test's specd still answers after the test: %s", resp.Status)
	}
}

// TestNoBinary: a missing binary is an error that says where specd is
// looked for, not a hang.
func TestNoBinary(t *testing.T) {
	env := &specdtest.Environment{Schemas: crds, Binary: filepath.Join(t.TempDir(), "no-specd")}
	_, err := env.Start(t.Context())
	if err == nil {
		env.Stop()
		t.Fatal("started without a binary")
	}
	t.Log(err)
}

// BenchmarkStart measures specdtest's Start, from nothing to a ready
// specd serving examples/crds (its embedded etcd, RBAC and the two CRDs),
// and its Stop, as a suite pays them once per package: ns/op is both,
// ready-s/op the Start alone.
func BenchmarkStart(b *testing.B) {
	var ready time.Duration
	for b.Loop() {
		env := &specdtest.Environment{Schemas: crds}
		start := time.Now()
		if _, err := env.Start(b.Context()); err != nil {
			b.Fatal(err)
		}
		ready += time.Since(start)
		env.Stop()
	}
	b.ReportMetric(ready.Seconds()/float64(b.N), "ready-s/op")
}
