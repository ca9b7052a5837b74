// Package events turns the events a plugin records into core v1 Event
// objects, correlated by client-go's own EventCorrelator (tools/record,
// the legacy recorder's), so their series are those kubectl and every
// controller's users expect:
//
//   - a repeat of an event (same source, object, type, reason and message)
//     raises count and lastTimestamp of the Event made before, by a patch,
//     instead of making another object;
//   - ten events of one reason about one object that differ only in their
//     message within ten minutes become one Event "(combined from similar
//     events): ...";
//   - a source may make 25 events about one object at once, then one every
//     five minutes; the rest are dropped.
//
// A Recorder writes through hook.Callbacks, so every Event is created
// with the same admission and authorization as the plugin's other writes.
// It holds the correlation state of one plugin, in memory: a restart of
// specd starts new series, as a restart of a controller does.
package events
