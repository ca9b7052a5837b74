package serving

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/specd-io/specd/schemas"
)

// gadgetsCRD is a CRD object's declarations, with spec properties props
// and annotations.
func gadgetsCRD(props, annotations string) *schemas.Declarations {
	doc := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gadgets.toys.example.org"` + annotations + `},
"spec":{"group":"toys.example.org","scope":"Namespaced","names":{"plural":"gadgets","kind":"Gadget"},
"versions":[{"name":"v1","served":true,"storage":true,
"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{` + props + `}}}}}}]}}`
	return schemas.ParseCRD(SourcePrefix+"gadgets.toys.example.org", []byte(doc))
}

// TestDeclaredThroughTheGate: a CRD object's declarations are served by
// SetDeclared; CheckDeclared refuses a breaking change unless the CRD
// allows it, and serves nothing; a CRD that goes takes its resource with
// it, through the gate.
func TestDeclaredThroughTheGate(t *testing.T) {
	ctx := context.Background()
	s, err := New(ctx, Config{Dir: t.TempDir(), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := s.Serve(ctx, nil)
	defer r.Stop()
	both := `"size":{"type":"integer"},"color":{"type":"string"}`
	if err := r.SetDeclared(ctx, []*schemas.Declarations{gadgetsCRD(both, "")}); err != nil {
		t.Fatal(err)
	}
	res := s.Registry().Resource("gadgets.toys.example.org")
	if res == nil || res.CRD != "gadgets.toys.example.org" || res.Versions[0].File != SourcePrefix+"gadgets.toys.example.org" {
		t.Fatalf("gadgets: %+v, want declared by the CRD object", res)
	}
	err = s.CheckDeclared(ctx, nil, gadgetsCRD(`"size":{"type":"integer"}`, ""))
	problems, refused := Refused(err)
	if !refused || len(problems) != 1 || !strings.Contains(problems[0].Message, "field .spec.color is removed") {
		t.Fatalf("removing a field: %v, want the gate's refusal naming it", err)
	}
	allow := `,"annotations":{"specd.io/allow-breaking":"true"}`
	if err := s.CheckDeclared(ctx, nil, gadgetsCRD(`"size":{"type":"integer"}`, allow)); err != nil {
		t.Fatalf("removing a field with the allow annotation: %v", err)
	}
	if err := s.CheckDeclared(ctx, nil, gadgetsCRD(both+`,"weight":{"type":"integer"}`, "")); err != nil {
		t.Fatalf("adding a field: %v", err)
	}
	if s.Registry().Resource("gadgets.toys.example.org") != res {
		t.Fatal("CheckDeclared served what it checked")
	}
	if err := r.SetDeclared(ctx, nil); err != nil || s.Registry().Resource("gadgets.toys.example.org") != nil {
		t.Fatalf("the CRD deleted: %v, want its resource gone", err)
	}
	if errors.Is(s.ReadyCheck(), ErrRefused) {
		t.Error("the last reload was refused")
	}
}

// TestDeclaredWithoutTheCRDGate: with NoCRDGate (--crd-gate=false) a
// CRD object's breaking change passes without its annotation, as
// kube-apiserver takes it.
func TestDeclaredWithoutTheCRDGate(t *testing.T) {
	ctx := context.Background()
	s, err := New(ctx, Config{Dir: t.TempDir(), Logger: quietLogger(), NoCRDGate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := s.Serve(ctx, nil)
	defer r.Stop()
	both := `"size":{"type":"integer"},"color":{"type":"string"}`
	if err := r.SetDeclared(ctx, []*schemas.Declarations{gadgetsCRD(both, "")}); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckDeclared(ctx, nil, gadgetsCRD(`"size":{"type":"string"}`, "")); err != nil {
		t.Fatalf("removing a field and changing a type: %v, want them taken", err)
	}
	if err := r.SetDeclared(ctx, []*schemas.Declarations{gadgetsCRD(`"size":{"type":"string"}`, "")}); err != nil {
		t.Fatalf("serving the change: %v", err)
	}
}

// TestSetDeclaredUnchangedDoesNotReload: the CRD feed's first sync with
// no CRD objects, or the same CRDs again, reloads nothing, so the next
// reload a file change asks for is the one that serves it.
func TestSetDeclaredUnchangedDoesNotReload(t *testing.T) {
	ctx := context.Background()
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := New(ctx, Config{Dir: t.TempDir(), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := s.Serve(ctx, nil)
	defer r.Stop()
	gadgets := `"size":{"type":"integer"}`
	for _, declared := range [][]*schemas.Declarations{nil, {gadgetsCRD(gadgets, "")}, {gadgetsCRD(gadgets, "")}} {
		if err := r.SetDeclared(ctx, declared); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logged.String(), "trigger=customresourcedefinitions"); n != 1 {
		t.Errorf("%d reloads for an empty set, one CRD, the same CRD again; want 1:\n%s", n, logged.String())
	}
}
