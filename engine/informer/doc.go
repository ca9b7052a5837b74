// Package informer is the one watch loop that background work and the
// caches requests read from share, as a client-go informer is: Run feeds
// a Feed with every object of a resource, then each change, and resumes
// after the last event it applied when a watch ends, or starts over with
// every object (Feed.Replace) when it cannot. The namespaces' cache, the
// RBAC indexes, the CRD API and the controllers are fed by it.
package informer
