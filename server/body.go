package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// bodyMediaType returns the media type of a request body: application/json
// (also when no Content-Type is sent, as kube-apiserver assumes) or
// application/yaml, or protobuf for the built-in kinds; anything else is a
// 415.
func bodyMediaType(r *http.Request, protobuf bool) (string, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" || ct == contentTypeJSON {
		return contentTypeJSON, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == contentTypeJSON || mt == contentTypeYAML || protobuf && mt == contentTypeProtobuf) {
		return mt, nil
	}
	if protobuf {
		return "", unsupportedMediaType("application/json, application/yaml, " + contentTypeProtobuf)
	}
	return "", unsupportedMediaType("application/json, application/yaml")
}

func unsupportedMediaType(accepted string) error {
	return &apierrors.StatusError{ErrStatus: failure(http.StatusUnsupportedMediaType,
		metav1.StatusReasonUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: "+accepted)}
}

// readBody reads at most limit bytes of the request body and returns it as
// JSON. A body over the limit is a 413, found without reading it all; an
// empty body is a 400. problems are what a strict reading of a YAML body
// found that its JSON no longer shows (a key given twice, of which the
// JSON keeps the last), for the engine to judge as fieldValidation says,
// as kube-apiserver does.
func readBody(r *http.Request, mediaType string, limit int64) (body []byte, problems []error, err error) {
	if body, err = ReadLimited(r, limit); err != nil {
		return nil, nil, err
	}
	if len(body) == 0 {
		return nil, nil, badRequest("the request body is empty")
	}
	switch mediaType {
	case contentTypeProtobuf:
		body, err = protobufToJSON(body)
		return body, nil, err
	case contentTypeYAML:
	default:
		return body, nil, nil
	}
	// One parse in the usual case: the strict one, whose JSON is the
	// same when it succeeds. When it fails, the plain one keeps the last
	// of duplicate keys, and the strict error is for the engine to judge.
	if j, strictErr := yaml.YAMLToJSONStrict(body); strictErr == nil {
		return j, nil, nil
	} else {
		// On one line: it may be sent back in a Warning header.
		problems = []error{errors.New(strings.Join(strings.Fields(strictErr.Error()), " "))}
	}
	j, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil, nil, badRequest("the request body is not valid YAML: %v", err)
	}
	return j, problems, nil
}

// ReadLimited reads the whole body, or answers 413 when it is over limit
// and 400 when it cannot be read. The review APIs read theirs with it too.
func ReadLimited(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	if r.Body == nil {
		return nil, nil
	}
	size := r.ContentLength
	if size < 0 || size > limit {
		size = 512
	}
	buf := make([]byte, 0, size+1)
	lr := io.LimitReader(r.Body, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, badRequest("reading the request body: %v", err)
		}
	}
	if int64(len(buf)) > limit {
		return nil, tooLarge(limit)
	}
	return buf, nil
}

// tooLarge is the 413 of a body over limit.
func tooLarge(limit int64) error {
	return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
}
