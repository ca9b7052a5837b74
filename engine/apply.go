package engine

import (
	"context"
)

// applyCreate creates the object an apply names. Created meanwhile by
// another write, it answers AlreadyExists, and the patch applies again to
// what is there now.
func (s *Store) applyCreate(ctx context.Context, p *patcher) (PatchResult, error) {
	rv, name := p.req.Version, p.req.Name
	fm, err := s.fields.of(rv)
	if err != nil {
		return PatchResult{}, err
	}
	w := applyWrite(p)
	w.Now = s.now()
	obj, out, err := fm.Apply(nil, p.config.obj, nil, w, p.req.Options.Force)
	if err != nil {
		return PatchResult{}, applyError(err)
	}
	if obj == nil {
		obj = p.config.obj
	}
	if got, _ := p.config.metaMap["name"].(string); got != name {
		return PatchResult{}, errNameMismatch(got, name)
	}
	body, err := encode(obj, 512)
	if err != nil {
		return PatchResult{}, err
	}
	wopts := p.req.Options.WriteOptions
	wopts.applied = &appliedFields{entries: out}
	create := Ref{Version: rv, Namespace: p.req.Namespace}
	res, err := s.Create(ctx, WriteRequest{Ref: create, Body: body, Options: wopts})
	if err != nil {
		return PatchResult{}, err
	}
	res.Warnings = append(p.warnings, res.Warnings...)
	return PatchResult{Result: res, Created: true}, nil
}
