package reviews

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/specd-io/specd/server"
)

// maxBodyBytes bounds a review's body, as every request body of specd.
const maxBodyBytes = server.DefaultMaxBodyBytes

// Config is what the reviews answer from.
type Config struct {
	// Authorizer answers the access reviews; the same one the request
	// chain uses, so can-i tells the truth. Nil allows everything, as in
	// filters.Config.
	Authorizer authorizer.UnconditionalAuthorizer
	// RuleResolver lists a user's rules for can-i --list. Nil: the
	// Authorizer's when it is one, else the review says it is incomplete.
	RuleResolver authorizer.RuleResolver
}

// Groups returns the two review groups for server.Config.Extra.
func Groups(cfg Config) []server.ExtraGroup {
	if cfg.Authorizer == nil {
		cfg.Authorizer = authorizerfactory.NewAlwaysAllowAuthorizer()
	}
	if cfg.RuleResolver == nil {
		cfg.RuleResolver, _ = cfg.Authorizer.(authorizer.RuleResolver)
	}
	codecs := newCodecs()
	return []server.ExtraGroup{
		newGroup(authorizationv1.SchemeGroupVersion, codecs, authorizationEndpoints(cfg)),
		newGroup(authenticationv1.SchemeGroupVersion, codecs, []endpoint{selfSubjectReview()}),
	}
}

// newCodecs decodes and encodes the review types in every encoding kube
// offers (JSON, YAML, protobuf). The reviews are fixed Go types, not
// schema objects, so apimachinery's scheme and the apiserver's response
// writers serve them exactly as kube does.
func newCodecs() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	for _, add := range []func(*runtime.Scheme) error{authorizationv1.AddToScheme, authenticationv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic("reviews: registering the review types: " + err.Error())
		}
	}
	return serializer.NewCodecFactory(scheme)
}

// endpoint is one create-only resource.
type endpoint struct {
	resource metav1.APIResource
	newObj   func() runtime.Object
	create   func(ctx context.Context, in runtime.Object) (runtime.Object, error)
}

// group serves the endpoints of one group version.
type group struct {
	gv        schema.GroupVersion
	prefix    string
	codecs    serializer.CodecFactory
	endpoints map[string]endpoint
}

func newGroup(gv schema.GroupVersion, codecs serializer.CodecFactory, eps []endpoint) server.ExtraGroup {
	g := &group{gv: gv, prefix: "/apis/" + gv.Group + "/" + gv.Version + "/", codecs: codecs, endpoints: map[string]endpoint{}}
	resources := make([]metav1.APIResource, 0, len(eps))
	for _, ep := range eps {
		g.endpoints[ep.resource.Name] = ep
		resources = append(resources, ep.resource)
	}
	return server.ExtraGroup{Group: gv.Group, Version: gv.Version, Resources: resources, Handler: g}
}

func (g *group) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ep, ns, ok := g.endpoint(strings.TrimPrefix(r.URL.Path, g.prefix))
	switch {
	case !ok:
		g.fail(w, r, apierrors.NewNotFound(schema.GroupResource{}, ""), "the server could not find the requested resource")
		return
	case r.Method != http.MethodPost:
		g.fail(w, r, apierrors.NewMethodNotSupported(g.gv.WithResource(ep.resource.Name).GroupResource(), r.Method),
			"the server does not allow this method on the requested resource")
		return
	}
	if ns != "" {
		r = r.WithContext(request.WithNamespace(r.Context(), ns))
	}
	in, err := g.decode(r, ep)
	if err != nil {
		responsewriters.ErrorNegotiated(err, g.codecs, g.gv, w, r)
		return
	}
	out, err := ep.create(r.Context(), in)
	if err != nil {
		responsewriters.ErrorNegotiated(err, g.codecs, g.gv, w, r)
		return
	}
	responsewriters.WriteObjectNegotiated(g.codecs, negotiation.DefaultEndpointRestrictions, g.gv, w, r, http.StatusCreated, out, false)
}

// endpoint finds the endpoint of rest, the path under the group version:
// RESOURCE for a cluster-scoped one, namespaces/NS/RESOURCE for a
// namespaced one, whose namespace it returns.
func (g *group) endpoint(rest string) (endpoint, string, bool) {
	var ns string
	if parts := strings.Split(rest, "/"); len(parts) == 3 && parts[0] == "namespaces" && parts[1] != "" {
		ns, rest = parts[1], parts[2]
	}
	ep, ok := g.endpoints[rest]
	if !ok || ep.resource.Namespaced != (ns != "") {
		return endpoint{}, "", false
	}
	return ep, ns, true
}

// fail writes err's Status with message, kube's words for a path or
// method no route serves.
func (g *group) fail(w http.ResponseWriter, r *http.Request, err *apierrors.StatusError, message string) {
	err.ErrStatus.Message, err.ErrStatus.Details = message, nil
	responsewriters.ErrorNegotiated(err, g.codecs, g.gv, w, r)
}

// decode reads the body, in its Content-Type, as ep's kind.
func (g *group) decode(r *http.Request, ep endpoint) (runtime.Object, error) {
	info, err := negotiation.NegotiateInputSerializer(r, false, g.codecs)
	if err != nil {
		return nil, err
	}
	body, err := server.ReadLimited(r, maxBodyBytes)
	if err != nil {
		return nil, err
	}
	want := g.gv.WithKind(ep.resource.Kind)
	obj, got, err := g.codecs.DecoderToVersion(info.Serializer, g.gv).Decode(body, &want, ep.newObj())
	if err != nil {
		return nil, decodeError(err, got, want)
	}
	return obj, nil
}

// decodeError says what kube says of a body it cannot decode, naming the
// kind sent when there is one.
func decodeError(err error, got *schema.GroupVersionKind, want schema.GroupVersionKind) error {
	if got != nil && got.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", got.Kind, got.Version, want.Kind, err))
	}
	return apierrors.NewBadRequest(err.Error())
}
