package crd

import "time"

// DeletionCheckAfter is how long the Controller waits for the objects of
// a CRD being deleted before it says it could not confirm they are gone
// (the InstanceDeletionCheck reason): kube's finalizer polls for a minute.
const DeletionCheckAfter = time.Minute

// deletionCheck is called each time objects of the CRD name remain. As
// kube's finalizer, which polls for a minute, then sets Terminating's
// reason to InstanceDeletionCheck and starts again (InstanceDeletionInProgress),
// it answers that condition once every DeletionCheckAfter, nil otherwise.
func (c *Controller) deletionCheck(name string) *Condition {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	since, ok := c.waiting[name]
	if !ok || now.Sub(since) < DeletionCheckAfter {
		if !ok {
			c.waiting[name] = now
		}
		return nil
	}
	c.waiting[name] = now
	check := deletionUnconfirmed
	return &check
}

// doneWaiting forgets the wait for the objects of the CRD name.
func (c *Controller) doneWaiting(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.waiting, name)
}
