package engine

import (
	"context"
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/schemas"
)

// DeleteCollection deletes every object of namespace ("" for all
// namespaces or cluster scope) that sel matches, each as Delete would with
// opts, and answers as kube-apiserver does: the <Kind>List of the matched
// objects as they were listed. Objects already gone are skipped; the first
// other error ends the call.
func (s *Store) DeleteCollection(ctx context.Context, rv *schemas.ResourceVersion, namespace string, sel Selector, opts DeleteOptions) ([]byte, error) {
	prefix := s.listPrefix(rv.Resource, namespace)
	res, _, err := s.listPage(ctx, rv, prefix, ListOptions{}, sel)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	list, err := s.listBody(rv, res, "")
	if err != nil {
		return nil, err
	}
	for _, kv := range res.Items {
		name := kv.Key[strings.LastIndexByte(kv.Key, '/')+1:]
		_, err := s.deleteObject(ctx, rv, kv.Key, name, opts)
		switch {
		case err == nil, errors.Is(err, ErrKeyNotFound):
		default:
			var se apierrors.APIStatus
			if errors.As(err, &se) {
				return nil, err
			}
			return nil, storageError(rv.Resource, name, err)
		}
	}
	return list, nil
}
