// Package crd is kube-apiserver's CustomResourceDefinition API for specd:
// a CRD written through the API (apiextensions.k8s.io/v1, declared by
// the built-in schema file) declares a resource that specd serves, from
// the same registry as the schema files.
//
//   - Strategies is the CRD's behaviour in the write path: status cleared
//     on create, status.storedVersions kept, and a delete that marks the
//     CRD Terminating with the customresourcecleanup.apiextensions.k8s.io
//     finalizer instead of deleting it.
//   - API.WriteChecks vets a CRD write as the registry would take it: the
//     CRD's documents (schemas/crdobject) must compile with every other
//     schema, and an update must pass the compatibility gate unless the
//     CRD carries crdobject.AllowBreakingAnnotation; a resource that a
//     schema file declares cannot be taken. Each problem is a 422 cause at
//     the CRD's field.
//   - Feed runs on every replica: it watches the CRDs and hands the
//     documents of those whose names are accepted to the served schema set
//     (Applier.SetDeclared), which reloads. Those not yet Established are
//     loaded but not served (schemas.Resource.Installing); Installed lets
//     a request for one that storage says is Established since wait for
//     the reload that serves it.
//   - Controller runs on the elected replica, as kube's naming,
//     establishing and finalizer controllers do: it sets
//     status.acceptedNames and the NamesAccepted and Established
//     conditions, and, for a CRD being deleted, deletes its objects and
//     then removes the finalizer, which deletes the CRD.
package crd
