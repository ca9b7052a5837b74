package sdk

import "time"

// Condition is one entry of status.conditions, as metav1.Condition.
type Condition struct {
	Type   string `json:"type"`
	Status string `json:"status"` // "True", "False" or "Unknown"
	// ObservedGeneration is the metadata.generation the condition was
	// computed from.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// LastTransitionTime is when Status last changed, RFC 3339.
	LastTransitionTime string `json:"lastTransitionTime"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
}

// Conditions are the object's status.conditions.
func (o *Object) Conditions() []Condition {
	var conds []Condition
	if err := o.Decode("status.conditions", &conds); err != nil {
		return nil
	}
	return conds
}

// SetCondition sets c in conds, by type, and returns the result. When the
// condition's status changes (or it is new) its lastTransitionTime becomes
// now unless c carries one; when it does not, the old time is kept, so
// that a reconciler can set its conditions on every pass.
func SetCondition(conds []Condition, c Condition) []Condition {
	for i := range conds {
		if conds[i].Type != c.Type {
			continue
		}
		if c.LastTransitionTime == "" {
			c.LastTransitionTime = conds[i].LastTransitionTime
			if conds[i].Status != c.Status || c.LastTransitionTime == "" {
				c.LastTransitionTime = now()
			}
		}
		out := append([]Condition(nil), conds...)
		out[i] = c
		return out
	}
	if c.LastTransitionTime == "" {
		c.LastTransitionTime = now()
	}
	return append(append([]Condition(nil), conds...), c)
}

// FindCondition is the condition of type t in conds, nil if absent.
func FindCondition(conds []Condition, t string) *Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }
