package engine_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
)

// A fuzz program is lines of "verb[,flag...] [name] [body]": the fuzzer
// writes them, so any line that does not parse is skipped rather than
// failing. The verbs are the write path's entries and the reads that see
// what it stored:
//
//	create BODY          POST
//	put NAME BODY        PUT
//	status NAME BODY     PUT .../status
//	merge NAME BODY      merge patch (flag status: of .../status)
//	json NAME BODY       JSON patch (flag status)
//	apply NAME BODY      server-side apply (flags status, force)
//	delete NAME          DELETE
//	get NAME             GET
//	list [DELTA]         a list; with DELTA, a forged continue token at the
//	                     current revision + DELTA
//	big NAME KIB         POST of an object of KIB KiB and a few bytes
//
// The write flags are strict, ignore (fieldValidation) and dry (dryRun).
// "$RV" in a body stands for NAME's current resourceVersion, which the
// fuzzer cannot know.
type op struct {
	line  string
	verb  string
	flags map[string]bool
	name  string
	body  string
}

const (
	fuzzNamespace = "fuzz"
	// maxOps and maxBody bound one input: a patch of a few KB, as the
	// issue's were, is enough to reach every defect of the write path.
	maxOps  = 8
	maxBody = 4 << 10
	// maxBigKiB keeps a big object under the server's body limit
	// (server.DefaultMaxBodyBytes, 3 MiB): no larger one reaches the engine.
	maxBigKiB = 3<<10 - 1
)

// call runs one op on the store and answers the object (or list) it got.
type call func(e *fuzzEnv, ctx context.Context, o op) ([]byte, error)

var verbs = map[string]call{
	"create": (*fuzzEnv).create,
	"put":    (*fuzzEnv).put,
	"status": (*fuzzEnv).putStatus,
	"merge":  patchCall(engine.MergePatchType),
	"json":   patchCall(engine.JSONPatchType),
	"apply":  patchCall(engine.ApplyPatchType),
	"delete": (*fuzzEnv).delete,
	"get":    (*fuzzEnv).get,
	"list":   (*fuzzEnv).list,
	"big":    (*fuzzEnv).big,
}

// reads are the verbs that must never change what is stored.
var reads = map[string]bool{"get": true, "list": true}

func parseProgram(prog string) []op {
	var ops []op
	for line := range strings.Lines(prog) {
		if o, ok := parseOp(strings.TrimSuffix(line, "\n")); ok && len(ops) < maxOps {
			ops = append(ops, o)
		}
	}
	return ops
}

func parseOp(line string) (op, bool) {
	head, rest, _ := strings.Cut(line, " ")
	verb, flagList, _ := strings.Cut(head, ",")
	o := op{line: line, verb: verb, flags: map[string]bool{}}
	for f := range strings.SplitSeq(flagList, ",") {
		if f != "" {
			o.flags[f] = true
		}
	}
	if _, ok := verbs[verb]; !ok {
		return op{}, false
	}
	if verb != "create" && verb != "list" {
		o.name, rest, _ = strings.Cut(rest, " ")
		if !routable(o.name) {
			return op{}, false
		}
	}
	o.body = rest
	if verb == "big" {
		if kib, err := strconv.Atoi(rest); err != nil || kib < 0 || kib > maxBigKiB {
			return op{}, false
		}
	}
	return o, len(o.body) <= maxBody
}

// routable reports whether a name can arrive in a URL's path segment.
func routable(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.Contains(name, "/")
}

func (o op) String() string {
	if len(o.line) > 200 {
		return o.line[:200] + "..."
	}
	return o.line
}

func (o op) writeOptions() engine.WriteOptions {
	w := engine.WriteOptions{FieldManager: "fuzz", DryRun: o.flags["dry"]}
	switch {
	case o.flags["strict"]:
		w.FieldValidation = engine.FieldValidationStrict
	case o.flags["ignore"]:
		w.FieldValidation = engine.FieldValidationIgnore
	}
	return w
}

// writes reports whether a successful o must have stored what it answered.
func (o op) writes() bool { return !reads[o.verb] && o.verb != "delete" && !o.flags["dry"] }

func (e *fuzzEnv) create(ctx context.Context, o op) ([]byte, error) {
	res, err := e.s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: e.rv, Namespace: fuzzNamespace}, Body: []byte(o.body), Options: o.writeOptions()})
	return res.Object, err
}

func (e *fuzzEnv) put(ctx context.Context, o op) ([]byte, error) {
	res, err := e.s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: e.rv, Namespace: fuzzNamespace, Name: o.name}, Body: e.withRV(ctx, o), Options: o.writeOptions()})
	return res.Object, err
}

func (e *fuzzEnv) putStatus(ctx context.Context, o op) ([]byte, error) {
	res, err := e.s.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: e.rv, Namespace: fuzzNamespace, Name: o.name, Subresource: "status"}, Body: e.withRV(ctx, o), Options: o.writeOptions()})
	return res.Object, err
}

func patchCall(pt engine.PatchType) call {
	return func(e *fuzzEnv, ctx context.Context, o op) ([]byte, error) {
		opts := engine.PatchOptions{WriteOptions: o.writeOptions(), Force: o.flags["force"]}
		ref := engine.Ref{Version: e.rv, Namespace: fuzzNamespace, Name: o.name}
		if o.flags["status"] {
			ref.Subresource = "status"
		}
		res, err := e.s.Patch(ctx, engine.PatchRequest{Ref: ref, Type: pt, Patch: e.withRV(ctx, o), Options: opts})
		return res.Object, err
	}
}

func (e *fuzzEnv) delete(ctx context.Context, o op) ([]byte, error) {
	res, err := e.s.Delete(ctx, engine.Ref{Version: e.rv, Namespace: fuzzNamespace, Name: o.name}, engine.DeleteOptions{DryRun: o.flags["dry"]})
	return res.Object, err
}

func (e *fuzzEnv) get(ctx context.Context, o op) ([]byte, error) {
	return e.s.Get(ctx, engine.Ref{Version: e.rv, Namespace: fuzzNamespace, Name: o.name})
}

// list lists the namespace, or with a DELTA continues from a token forged
// at the current revision + DELTA, as a stale or hand-made token can be.
func (e *fuzzEnv) list(ctx context.Context, o op) ([]byte, error) {
	req := engine.ListRequest{Limit: 2}
	if delta, err := strconv.ParseInt(o.body, 10, 64); err == nil {
		cur, err := e.st.List(ctx, e.s.Upkeep().Keys().Prefix, storage.ListOptions{Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("current revision: %w", err)
		}
		req.Continue = forgedContinue(cur.Revision + delta)
	}
	return e.s.List(ctx, engine.Ref{Version: e.rv, Namespace: fuzzNamespace}, req)
}

// forgedContinue is a continue token in kube-apiserver's format.
func forgedContinue(rev int64) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, `{"v":"meta.k8s.io/v1","rv":%d,"start":"/a"}`, rev))
}

// big creates an object whose size the fuzzer picks, up to the body limit.
func (e *fuzzEnv) big(ctx context.Context, o op) ([]byte, error) {
	kib, _ := strconv.Atoi(o.body) // checked by parseOp
	body := fmt.Sprintf(`{"apiVersion":"shop.example.com/v1","kind":"Widget","metadata":{"name":%q},"spec":{"size":1,"tags":[%q]}}`,
		o.name, strings.Repeat("x", kib<<10))
	res, err := e.s.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: e.rv, Namespace: fuzzNamespace}, Body: []byte(body), Options: o.writeOptions()})
	return res.Object, err
}

// withRV is o's body with "$RV" replaced by the name's current
// resourceVersion ("" when it has none).
func (e *fuzzEnv) withRV(ctx context.Context, o op) []byte {
	if !strings.Contains(o.body, "$RV") {
		return []byte(o.body)
	}
	cur, _ := e.s.Get(ctx, engine.Ref{Version: e.rv, Namespace: fuzzNamespace, Name: o.name})
	return []byte(strings.ReplaceAll(o.body, "$RV", gjson.GetBytes(cur, "metadata.resourceVersion").String()))
}
