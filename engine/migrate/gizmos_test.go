package migrate_test

import (
	"fmt"
	"log/slog"

	"github.com/specd-io/specd/engine/internal/gizmotest"
	"github.com/specd-io/specd/engine/migrate"
	"github.com/specd-io/specd/engine/storage"
)

func newPrefix() string { return fmt.Sprintf("/test/%d/", prefixes.Add(1)) }

// migrator is a Migrator of the Store of g's registry on st under
// prefix.
func migrator(g *gizmotest.Gizmos, st storage.Storage, prefix string) *migrate.Migrator {
	return migrate.New(g.Store(st, prefix, testNow).Upkeep(), slog.New(slog.DiscardHandler))
}
