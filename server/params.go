package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/schemas"
)

// writeOptions reads and validates fieldValidation, dryRun and
// fieldManager with apimachinery's rules. Invalid values are answered as
// kube-apiserver does: 422 Invalid on kind (CreateOptions|UpdateOptions).
func writeOptions(q url.Values, optionsKind string) (engine.WriteOptions, error) {
	dryRun, fv, manager := q["dryRun"], q.Get("fieldValidation"), q.Get("fieldManager")
	var errs field.ErrorList
	if optionsKind == "CreateOptions" {
		errs = metav1validation.ValidateCreateOptions(&metav1.CreateOptions{DryRun: dryRun, FieldValidation: fv, FieldManager: manager})
	} else {
		errs = metav1validation.ValidateUpdateOptions(&metav1.UpdateOptions{DryRun: dryRun, FieldValidation: fv, FieldManager: manager})
	}
	if len(errs) > 0 {
		return engine.WriteOptions{}, optionsInvalid(optionsKind, errs)
	}
	return engine.WriteOptions{FieldValidation: engine.FieldValidation(fv), DryRun: len(dryRun) > 0, FieldManager: manager}, nil
}

func optionsInvalid(kind string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
}

// listRequest reads limit, continue, labelSelector and fieldSelector for a
// list of rv.
func listRequest(rv *schemas.ResourceVersion, q url.Values) (engine.ListRequest, error) {
	var req engine.ListRequest
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return req, badRequest("invalid limit %q: must be a non-negative integer", v)
		}
		req.Limit = n
	}
	req.Continue = q.Get("continue")
	sel, err := engine.ParseSelector(rv, q.Get("labelSelector"), q.Get("fieldSelector"))
	if err != nil {
		return req, err
	}
	req.Selector = sel
	if err := listResourceVersion(q, &req); err != nil {
		return req, err
	}
	return req, nil
}

// deleteOptions merges the query parameters and the optional DeleteOptions
// body of a DELETE.
func deleteOptions(r *http.Request, t target, limit int64) (engine.DeleteOptions, error) {
	var opts engine.DeleteOptions
	var body metav1.DeleteOptions
	if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		mt, err := bodyMediaType(r, hasProtobuf(t.rv))
		if err != nil {
			return opts, err
		}
		raw, err := ReadLimited(r, limit)
		if err != nil {
			return opts, err
		}
		if len(raw) > 0 {
			j, err := decodeDeleteOptions(raw, mt, &body)
			if err != nil {
				return opts, err
			}
			auditRequest(r, t, j)
		}
	}
	if err := deleteQuery(r.URL.Query(), &body); err != nil {
		return opts, err
	}
	if errs := metav1validation.ValidateDeleteOptions(&body); len(errs) > 0 {
		return opts, optionsInvalid("DeleteOptions", errs)
	}
	opts.DryRun = len(body.DryRun) > 0
	opts.GracePeriodSeconds = body.GracePeriodSeconds
	opts.OrphanDependents = body.OrphanDependents //nolint:staticcheck // still sent by clients
	if body.PropagationPolicy != nil {
		opts.PropagationPolicy = *body.PropagationPolicy
	}
	if p := body.Preconditions; p != nil {
		if p.UID != nil {
			opts.UID = string(*p.UID)
		}
		if p.ResourceVersion != nil {
			opts.ResourceVersion = *p.ResourceVersion
		}
	}
	return opts, nil
}

// decodeDeleteOptions reads a DeleteOptions body: JSON, YAML, or the
// protobuf client-go's typed clients send for the built-in kinds.
func decodeDeleteOptions(raw []byte, mediaType string, into *metav1.DeleteOptions) (asJSON []byte, err error) {
	if mediaType == contentTypeProtobuf {
		return protobufDeleteOptions(raw, into)
	}
	if mediaType == contentTypeYAML {
		if raw, err = yaml.YAMLToJSON(raw); err != nil {
			return nil, badRequest("decoding DeleteOptions: %v", err)
		}
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return nil, badRequest("decoding DeleteOptions: %v", err)
	}
	return raw, nil
}
