package engine

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/specd-io/specd/internal/dnsname"
	"github.com/specd-io/specd/schemas"
)

const (
	// generated names are generateName plus this many random characters,
	// cut so the result fits a 63-character name, as kube-apiserver does.
	randomNameLength   = 5
	maxGeneratedPrefix = 63 - randomNameLength
)

var metadataPath = field.NewPath("metadata")

// errNamespaceMismatch is kube-apiserver's answer when the body names
// another namespace than the URL.
func errNamespaceMismatch() error {
	return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
}

// setNamespace makes the object's namespace the request's: namespaced
// objects take the URL's (a different one in the body is a bad request),
// cluster-scoped objects have none.
func (req *request) setNamespace(r *schemas.Resource, namespace string) error {
	if !r.Namespaced() {
		req.meta.Namespace = ""
		delete(req.metaMap, "namespace")
		return nil
	}
	if req.meta.Namespace != "" && req.meta.Namespace != namespace {
		return errNamespaceMismatch()
	}
	req.meta.Namespace = namespace
	req.metaMap["namespace"] = namespace
	return nil
}

// errNameMismatch is kube-apiserver's answer when the body names another
// object than the URL.
func errNameMismatch(body, url string) error {
	return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", body, url))
}

// setTarget checks the body's name against the URL's and makes the
// object's namespace the request's, for a write to an existing object.
func (req *request) setTarget(r *schemas.Resource, namespace, name string) error {
	if req.meta.Name != name {
		return errNameMismatch(req.meta.Name, name)
	}
	return req.setNamespace(r, namespace)
}

// setResourceVersion sets the resourceVersion the update req is made
// against, for an update that gave none and may do without.
func (req *request) setResourceVersion(rev int64) {
	req.meta.ResourceVersion = strconv.FormatInt(rev, 10)
	req.metaMap["resourceVersion"] = req.meta.ResourceVersion
}

// generateName returns base plus a random suffix.
func generateName(base string) string {
	if len(base) > maxGeneratedPrefix {
		base = base[:maxGeneratedPrefix]
	}
	return base + utilrand.String(randomNameLength)
}

// prepareCreateMeta sets the metadata the server owns on a new object and
// validates the metadata. A name is generated from generateName when the
// body has none.
func (req *request) prepareCreateMeta(r *schemas.Resource, namespace string, now time.Time, uid string, genName func(string) string) (field.ErrorList, error) {
	if err := req.setNamespace(r, namespace); err != nil {
		return nil, err
	}
	m, meta := req.metaMap, &req.meta
	if meta.Name == "" && meta.GenerateName != "" {
		meta.Name = genName(meta.GenerateName)
		m["name"] = meta.Name
	}
	created := metav1.NewTime(now.UTC().Truncate(time.Second))
	meta.UID, meta.CreationTimestamp, meta.Generation = typesUID(uid), created, 1
	meta.ResourceVersion, meta.DeletionTimestamp, meta.DeletionGracePeriodSeconds = "", nil, nil
	m["uid"] = uid
	m["creationTimestamp"] = created.Format(time.RFC3339)
	m["generation"] = int64(1)
	noGeneration(r, m, meta)
	for _, k := range []string{"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		delete(m, k)
	}
	return validateMeta(r, meta, nil), nil
}

// validateMeta validates all of an object's metadata, as kube-apiserver
// does on every write of a custom resource: names, namespace, labels,
// annotations, owner references, finalizers, managed fields. A new object
// (old nil) has the custom resource's name rules; an update has the rules
// every update has (rest.BeforeUpdate's common fields) and those of the
// change. Every write path comes here: create, update, status, patch,
// apply, scale.
func validateMeta(r *schemas.Resource, meta, old *metav1.ObjectMeta) field.ErrorList {
	if old == nil {
		return validation.ValidateObjectMeta(meta, r.Namespaced(), nameRule(r), metadataPath)
	}
	errs := validation.ValidateObjectMeta(meta, r.Namespaced(), path.ValidatePathSegmentName, metadataPath)
	return distinct(append(errs, validation.ValidateObjectMetaUpdate(meta, old, metadataPath)...))
}

// nameRule is the rule for the names of r's new objects: a DNS subdomain
// as for a custom resource, or what kube allows RBAC objects
// (rbac/validation's ValidateRBACName), a path segment.
func nameRule(r *schemas.Resource) validation.ValidateNameFunc {
	if r.NameValidation == schemas.PathSegmentNames {
		return path.ValidatePathSegmentName
	}
	return subdomainName
}

// subdomainName is validation.NameIsDNSSubdomain, which only a name
// that fails needs: its regular expression costs more than the rest of
// the check.
func subdomainName(name string, prefix bool) []string {
	if !prefix && dnsname.IsSubdomain(name) {
		return nil
	}
	return validation.NameIsDNSSubdomain(name, prefix)
}

// distinct drops the repeated errors of errs: both validations check
// labels, annotations and owner references, and one answer is enough.
func distinct(errs field.ErrorList) field.ErrorList {
	seen := make(map[string]bool, len(errs))
	out := errs[:0]
	for _, e := range errs {
		if k := e.Error(); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// noGeneration leaves metadata.generation out of the objects of a kind
// that has none in kube (schemas.Resource.NoGeneration): whatever a
// client sent is dropped, as kube's strategies clear it.
func noGeneration(r *schemas.Resource, m map[string]any, meta *metav1.ObjectMeta) {
	if r.NoGeneration {
		meta.Generation = 0
		delete(m, "generation")
	}
}

// stored is what an update keeps of the stored object.
type stored struct {
	obj  map[string]any
	meta metav1.ObjectMeta
	rev  int64
	// bookkeeping is the conversion annotation obj had (bookkeeping.go).
	bookkeeping string
}

// prepareUpdateMeta carries the server-owned metadata over from the stored
// object and validates the change. The generation moves when anything
// outside metadata (and status, when it is a subresource) changed.
func (req *request) prepareUpdateMeta(rv *schemas.ResourceVersion, old *stored) field.ErrorList {
	m, meta := req.metaMap, &req.meta
	meta.UID, meta.CreationTimestamp = old.meta.UID, old.meta.CreationTimestamp
	meta.DeletionTimestamp, meta.DeletionGracePeriodSeconds = old.meta.DeletionTimestamp, old.meta.DeletionGracePeriodSeconds
	for _, k := range []string{"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		if v, ok := old.obj["metadata"].(map[string]any)[k]; ok {
			m[k] = v
		} else {
			delete(m, k)
		}
	}
	meta.Generation = old.meta.Generation
	errs := validateMeta(rv.Resource, meta, &old.meta)
	if specChanged(old.obj, req.obj, rv.StatusSubresource) {
		meta.Generation++
	}
	m["generation"] = meta.Generation
	noGeneration(rv.Resource, m, meta)
	delete(m, "resourceVersion")
	delete(m, "selfLink")
	return errs
}

// keepStatus makes the object's status the stored one: with a status
// subresource the main endpoint cannot change it.
func keepStatus(obj, old map[string]any) {
	if s, ok := old["status"]; ok {
		obj["status"] = s
	} else {
		delete(obj, "status")
	}
}

// withStatusOf is the stored object old with the status of obj, and its
// metadata when meta is set: what a write to the status subresource may
// change (Strategy.StatusMetadata).
func withStatusOf(old, obj map[string]any, meta bool) map[string]any {
	out := make(map[string]any, len(old)+1)
	for k, v := range old {
		out[k] = v
	}
	keepStatus(out, obj)
	if md, ok := obj["metadata"]; ok && meta {
		out["metadata"] = md
	}
	return out
}

// specChanged reports whether anything but metadata (and status, when it is
// a subresource) differs between two objects of the same version.
func specChanged(old, obj map[string]any, statusSubresource bool) bool {
	skip := func(k string) bool {
		return k == "metadata" || k == "apiVersion" || k == "kind" || (statusSubresource && k == "status")
	}
	n := 0
	for k, v := range obj {
		if skip(k) {
			continue
		}
		n++
		ov, ok := old[k]
		if !ok || !reflect.DeepEqual(ov, v) {
			return true
		}
	}
	for k := range old {
		if !skip(k) {
			n--
		}
	}
	return n != 0
}

// checkUIDPrecondition rejects an update whose body names another uid.
func checkUIDPrecondition(r *schemas.Resource, name string, bodyUID, storedUID string) error {
	if bodyUID == "" || bodyUID == storedUID {
		return nil
	}
	return apierrors.NewConflict(groupResource(r), name,
		fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", bodyUID, storedUID))
}
