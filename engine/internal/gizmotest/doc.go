// Package gizmotest serves the Gizmo of internal/testschemas from an
// engine Store with its converter, for the tests of the engine's reads
// after a storage version change and of the migration in engine/migrate.
//
// Only tests import this package.
package gizmotest
