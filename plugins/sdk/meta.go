package sdk

// APIVersion is the object's apiVersion, as "fleet.example.com/v1".
func (o *Object) APIVersion() string { return o.String("apiVersion") }

// Kind is the object's kind.
func (o *Object) Kind() string { return o.String("kind") }

// Name is metadata.name.
func (o *Object) Name() string { return o.String("metadata.name") }

// Namespace is metadata.namespace, "" for a cluster-scoped object.
func (o *Object) Namespace() string { return o.String("metadata.namespace") }

// UID is metadata.uid, "" before the object is stored.
func (o *Object) UID() string { return o.String("metadata.uid") }

// ResourceVersion is metadata.resourceVersion.
func (o *Object) ResourceVersion() string { return o.String("metadata.resourceVersion") }

// Generation is metadata.generation, which changes with the spec.
func (o *Object) Generation() int64 { return o.Int("metadata.generation") }

// IsDeleting reports whether the object's deletion has begun: it has a
// deletionTimestamp and waits for its finalizers.
func (o *Object) IsDeleting() bool { return o.String("metadata.deletionTimestamp") != "" }

// Labels are the object's labels; nil if it has none.
func (o *Object) Labels() map[string]string { return o.stringMap("metadata.labels") }

// Annotations are the object's annotations; nil if it has none.
func (o *Object) Annotations() map[string]string { return o.stringMap("metadata.annotations") }

// Label is the value of one label, "" if absent.
func (o *Object) Label(key string) string { return o.String(Path("metadata", "labels", key)) }

// SetLabel sets one label.
func (o *Object) SetLabel(key, value string) error {
	return o.Set(Path("metadata", "labels", key), value)
}

// SetAnnotation sets one annotation.
func (o *Object) SetAnnotation(key, value string) error {
	return o.Set(Path("metadata", "annotations", key), value)
}

func (o *Object) stringMap(path string) map[string]string {
	var m map[string]string
	if err := o.Decode(path, &m); err != nil {
		return nil
	}
	return m
}
