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
	return engine.WriteOptions{FieldValidation: engine.FieldValidation(fv), DryRun: len(dryRun) > 0}, nil
}

func optionsInvalid(kind string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
}

// listRequest reads limit and continue. Selectors and watch are not served
// yet and are refused rather than ignored.
func listRequest(q url.Values) (engine.ListRequest, error) {
	var req engine.ListRequest
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return req, badRequest("invalid limit %q: must be a non-negative integer", v)
		}
		req.Limit = n
	}
	req.Continue = q.Get("continue")
	for _, p := range []string{"labelSelector", "fieldSelector"} {
		if q.Get(p) != "" {
			return req, badRequest("%s is not supported yet", p)
		}
	}
	return req, nil
}

// deleteOptions merges the query parameters and the optional DeleteOptions
// body of a DELETE.
func deleteOptions(r *http.Request, limit int64) (engine.DeleteOptions, error) {
	var opts engine.DeleteOptions
	var body metav1.DeleteOptions
	if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		mt, err := bodyMediaType(r)
		if err != nil {
			return opts, err
		}
		raw, err := readLimited(r, limit)
		if err != nil {
			return opts, err
		}
		if len(raw) > 0 {
			if err := decodeDeleteOptions(raw, mt, &body); err != nil {
				return opts, err
			}
		}
	}
	if values := r.URL.Query()["dryRun"]; len(values) > 0 {
		body.DryRun = values
	}
	if errs := metav1validation.ValidateDeleteOptions(&body); len(errs) > 0 {
		return opts, optionsInvalid("DeleteOptions", errs)
	}
	opts.DryRun = len(body.DryRun) > 0
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

func decodeDeleteOptions(raw []byte, mediaType string, into *metav1.DeleteOptions) error {
	if mediaType == contentTypeYAML {
		j, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return badRequest("decoding DeleteOptions: %v", err)
		}
		raw = j
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return badRequest("decoding DeleteOptions: %v", err)
	}
	return nil
}
