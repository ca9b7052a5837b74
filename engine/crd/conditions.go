package crd

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types and the reasons specd sets, as kube's controllers word
// them.
const (
	NamesAccepted = "NamesAccepted"
	Established   = "Established"
	Terminating   = "Terminating"
)

// Condition is one of a CRD's status.conditions.
type Condition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitzero"`
	Reason             string      `json:"reason,omitempty"`
	Message            string      `json:"message,omitempty"`
}

func condition(t string, status bool, reason, message string) Condition {
	s := "False"
	if status {
		s = "True"
	}
	return Condition{Type: t, Status: s, Reason: reason, Message: message}
}

var (
	namesOK          = condition(NamesAccepted, true, "NoConflicts", "no conflicts found")
	notAccepted      = condition(Established, false, "NotAccepted", "not all names are accepted")
	installing       = condition(Established, false, "Installing", "the initial names have been accepted")
	established      = condition(Established, true, "InitialNamesAccepted", "the initial names have been accepted")
	deletionPending  = condition(Terminating, true, "InstanceDeletionPending", "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon")
	deletionProgress = condition(Terminating, true, "InstanceDeletionInProgress", "CustomResource deletion is in progress")
	deletionDone     = condition(Terminating, false, "InstanceDeletionCompleted", "removed all instances")
	neverEstablished = condition(Terminating, false, "NeverEstablished", "resource was never established")
	// deletionUnconfirmed is what kube's finalizer sets when objects remain
	// after its minute of polling, whose timeout is the error it quotes.
	deletionUnconfirmed = condition(Terminating, true, "InstanceDeletionCheck",
		"could not confirm zero CustomResources remaining: "+context.DeadlineExceeded.Error())
)

// find returns the condition of type t, nil for none.
func find(conds []Condition, t string) *Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// isTrue reports whether the condition of type t is True.
func isTrue(conds []Condition, t string) bool {
	c := find(conds, t)
	return c != nil && c.Status == "True"
}

// setCondition sets c in conds as kube's SetCRDCondition does: the
// transition time changes only when the status does; a new type is
// appended.
func setCondition(conds []Condition, c Condition, now time.Time) []Condition {
	old := find(conds, c.Type)
	if old == nil {
		c.LastTransitionTime = metav1.NewTime(now.Truncate(time.Second))
		return append(conds, c)
	}
	if old.Status != c.Status {
		old.LastTransitionTime = metav1.NewTime(now.Truncate(time.Second))
	}
	old.Status, old.Reason, old.Message = c.Status, c.Reason, c.Message
	return conds
}
