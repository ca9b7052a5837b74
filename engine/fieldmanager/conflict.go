package fieldmanager

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
)

// ConflictError turns the conflicts of an apply into kube-apiserver's 409
// Conflict Status, with one FieldManagerConflict cause per field; other
// errors are returned as they are.
func ConflictError(err error) error {
	var c merge.Conflicts
	if !errors.As(err, &c) {
		return err
	}
	causes := make([]metav1.StatusCause, 0, len(c))
	for _, conflict := range c {
		causes = append(causes, metav1.StatusCause{
			Type:    metav1.CauseTypeFieldManagerConflict,
			Message: fmt.Sprintf("conflict with %v", printManager(conflict.Manager)),
			Field:   conflict.Path.String(),
		})
	}
	return apierrors.NewApplyConflict(causes, conflictMessage(c))
}

func conflictMessage(c merge.Conflicts) string {
	if len(c) == 1 {
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %v: %v", printManager(c[0].Manager), c[0].Path)
	}
	m := map[string][]fieldpath.Path{}
	for _, conflict := range c {
		m[conflict.Manager] = append(m[conflict.Manager], conflict.Path)
	}
	managers := make([]string, 0, len(m))
	for manager := range m {
		managers = append(managers, manager)
	}
	sort.Strings(managers)
	var lines []string
	for _, manager := range managers {
		lines = append(lines, fmt.Sprintf("conflicts with %v:", printManager(manager)))
		for _, p := range m[manager] {
			lines = append(lines, fmt.Sprintf("- %v", p))
		}
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(c), strings.Join(lines, "\n"))
}

// printManager renders a manager identifier as kube-apiserver does.
func printManager(manager string) string {
	e := &metav1.ManagedFieldsEntry{}
	if err := json.Unmarshal([]byte(manager), e); err != nil {
		return fmt.Sprintf("%q", manager)
	}
	s := fmt.Sprintf("%q", e.Manager)
	if e.Subresource != "" {
		s = fmt.Sprintf("%s with subresource %q", s, e.Subresource)
	}
	if e.Operation == metav1.ManagedFieldsOperationUpdate {
		if e.Time == nil {
			return fmt.Sprintf("%s using %v", s, e.APIVersion)
		}
		return fmt.Sprintf("%s using %v at %v", s, e.APIVersion, e.Time.UTC().Format(time.RFC3339))
	}
	return s
}
