package pluginv1_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

// withoutUserInfo is AdmissionRequest as plugin.proto declared it before
// user_info (field 12): what a plugin generated from the older file
// decodes with.
func withoutUserInfo(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	fdp := protodesc.ToFileDescriptorProto(pluginv1.File_specd_plugin_v1_plugin_proto)
	for _, m := range fdp.GetMessageType() {
		if m.GetName() != "AdmissionRequest" {
			continue
		}
		var kept []*descriptorpb.FieldDescriptorProto
		for _, f := range m.GetField() {
			if f.GetNumber() != 12 {
				kept = append(kept, f)
			}
		}
		m.Field = kept
	}
	fd, err := protodesc.NewFile(fdp, new(protoregistry.Files))
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("AdmissionRequest")
}

// TestUserInfoWireCompatible: an AdmissionRequest with user_info decodes
// in the older schema with every other field intact, and one without it
// (from an older host) decodes in this one with no user.
func TestUserInfoWireCompatible(t *testing.T) {
	old := withoutUserInfo(t)
	if old.Fields().ByNumber(12) != nil {
		t.Fatal("the older schema still has field 12")
	}
	req := &pluginv1.AdmissionRequest{Group: "g", Version: "v1", Kind: "K", Resource: "ks", Namespace: "ns", Name: "n",
		Operation: "UPDATE", Object: []byte(`{"a":1}`), OldObject: []byte(`{"a":0}`), DryRun: true, Subresource: "status",
		UserInfo: &pluginv1.UserInfo{Username: "alice", Uid: "u", Groups: []string{"g1"},
			Extra: map[string]*pluginv1.ExtraValue{"k": {Values: []string{"v"}}}}}
	wire, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	got := dynamicpb.NewMessage(old)
	if err := proto.Unmarshal(wire, got); err != nil {
		t.Fatalf("older schema: %v", err)
	}
	// What the older schema knows, re-read in this one, is req without
	// the user.
	known := proto.Clone(got).(*dynamicpb.Message)
	known.SetUnknown(nil)
	knownWire, err := proto.Marshal(known)
	if err != nil {
		t.Fatal(err)
	}
	back := &pluginv1.AdmissionRequest{}
	if err := proto.Unmarshal(knownWire, back); err != nil {
		t.Fatal(err)
	}
	want := proto.Clone(req).(*pluginv1.AdmissionRequest)
	want.UserInfo = nil
	if !proto.Equal(back, want) {
		t.Errorf("the older schema read\n%v\nwant\n%v", back, want)
	}
	if back.GetUserInfo() != nil {
		t.Errorf("a request without user_info has user %v", back.GetUserInfo())
	}
}
