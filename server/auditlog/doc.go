// Package auditlog owns specd's audit log: the --audit-* flags of
// kube-apiserver, the audit.k8s.io/v1 Policy file they name, and the log
// backend that writes one audit.k8s.io/v1 Event a line, rotated by size
// and age. It builds on k8s.io/apiserver's audit packages, so the policy
// rules and the events are kube-apiserver's own.
//
// The events are made by k8s.io/apiserver's WithAuditInit and WithAudit
// filters, which the request chain (server/filters) wraps around specd's
// routes with what New returns. Handlers, which hold objects as JSON
// bytes, add the request and response bodies with LogRequestObject,
// LogRequestPatch, LogResponseObject and LogResponseStatus. Each first
// reads the event's level and returns when it keeps nothing of the body,
// so that they cost a context lookup when audit is off.
package auditlog
