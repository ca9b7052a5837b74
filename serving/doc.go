// Package serving owns the versioned set of schemas specd serves. It loads
// the schema directory into a world (registry and conversion rules),
// proves the world's conversion round trips, and, on a reload, judges the
// change by the compatibility gate, swaps the new world in atomically and
// makes the parts of specd that keep state per resource follow
// (Follower). It keeps the last four replaced worlds so that a request
// that took one before a swap still converts with its rules
// (Set.ConverterFor). Reloads are triggered by SIGHUP and by changes in
// the directory; their outcome feeds /readyz (Set.ReadyCheck) and the
// specd_schema_reload* metrics.
package serving
