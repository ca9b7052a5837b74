package structural

// checkDefaults rejects defaults that kube-apiserver rejects when a CRD is
// created: a default must not carry fields that pruning would drop, and must
// validate against its own schema. Defaults inside the metadata of the root
// or of an embedded resource are left to the engine, as ObjectMeta is.
func (c *compiler) checkDefaults(n *node, ptr string, insideMeta, root bool) {
	if n == nil {
		return
	}
	if n.embedded {
		insideMeta = false
	}
	if n.hasDefault && !insideMeta {
		c.checkDefault(n, ptr)
	}
	if n.items != nil {
		c.checkDefaults(n.items, PointerJoin(ptr, "items"), insideMeta, false)
	}
	for _, k := range n.propNames {
		meta := (n.embedded || root) && isMetaField(k)
		c.checkDefaults(n.props[k], PointerJoin(ptr, "properties", k), insideMeta || meta, false)
	}
}

func (c *compiler) checkDefault(n *node, ptr string) {
	ptr = PointerJoin(ptr, "default")
	pruned := deepCopy(n.def)
	pr := pruner{p: walkPath{segs: make([]seg, 0, 16)}}
	pr.prune(pruned, n, n.embedded, false)
	if len(pr.removed) > 0 {
		c.errorf(ptr, "must not have unknown fields: %v", pr.removed)
	}
	v := validator{p: walkPath{segs: make([]seg, 0, 16)}}
	v.p.pushKey("default") // errors read "default.x: ...", "default in body ..."
	v.value(n, n.def, true, false)
	for _, e := range append(append(v.errs, v.metaErrs...), v.listErrs...) {
		c.errorf(ptr, "%s", e.Error())
	}
}
