package sdk

import "fmt"

// OwnerReference is one entry of metadata.ownerReferences.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ControllerReference is the reference that makes owner the controller of
// an object: controller and blockOwnerDeletion are true, so a foreground
// deletion of owner waits for the object.
func ControllerReference(owner *Object) OwnerReference {
	yes := true
	return OwnerReference{
		APIVersion: owner.APIVersion(), Kind: owner.Kind(), Name: owner.Name(), UID: owner.UID(),
		Controller: &yes, BlockOwnerDeletion: &yes,
	}
}

// OwnerReferences are the object's metadata.ownerReferences.
func (o *Object) OwnerReferences() []OwnerReference {
	var refs []OwnerReference
	if err := o.Decode("metadata.ownerReferences", &refs); err != nil {
		return nil
	}
	return refs
}

// ControllerOf is the object's controller reference, nil if it has none.
func (o *Object) ControllerOf() *OwnerReference {
	for _, r := range o.OwnerReferences() {
		if r.Controller != nil && *r.Controller {
			return &r
		}
	}
	return nil
}

// IsControlledBy reports whether owner is the object's controller.
func (o *Object) IsControlledBy(owner *Object) bool {
	c := o.ControllerOf()
	return c != nil && c.UID == owner.UID()
}

// SetControllerReference makes owner the object's controller, keeping its
// other owner references. It fails if another object controls it already.
func (o *Object) SetControllerReference(owner *Object) error {
	if owner.UID() == "" {
		return fmt.Errorf("controller reference to %s %s: the owner has no uid", owner.Kind(), owner.Name())
	}
	if c := o.ControllerOf(); c != nil && c.UID != owner.UID() {
		return fmt.Errorf("%s %s is already controlled by %s %s", o.Kind(), o.Name(), c.Kind, c.Name)
	}
	refs := []OwnerReference{ControllerReference(owner)}
	for _, r := range o.OwnerReferences() {
		if r.UID != owner.UID() {
			refs = append(refs, r)
		}
	}
	return o.Set("metadata.ownerReferences", refs)
}
