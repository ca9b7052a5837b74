package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/specd-io/specd/engine/storage"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/schemas"
)

// Storage version migration. An object is stored in the storage version
// its resource had when it was last written; after the storage version
// changes (a schema file moves storage: true), the objects written before
// stay in the old one. Reads convert from whatever version an object is
// in (convertStored), so nothing breaks, but the old version can only be
// removed once no object is stored in it. The migration rewrites them:
// per resource, it pages through the keys, converts each object that is
// not in the storage version and writes it back if its revision is still
// the one read. A concurrent write wins: the migration reads the object
// again and rewrites it only if it is still in an old version. Nothing but
// the conversion changes (metadata, generation and managed fields stay;
// the resourceVersion moves, as with any write).
//
// Two specd replicas may migrate one resource at once: every write is
// conditional on the revision read, so each object is rewritten once, by
// whichever replica gets there first, and the other finds it done.
//
// Progress is kept in storage (migrate_state.go), so a migration that
// is stopped continues after the last key it finished, and one that
// completed is not run again for the same storage version.

// DefaultMigrationPage is how many objects a migration reads at once.
const DefaultMigrationPage = 500

// migrateAttempts bounds the rewrites of one object that keeps changing
// under the migration; it is left for the next run after that.
const migrateAttempts = 8

// MigrateOptions configure a storage version migration.
type MigrateOptions struct {
	// PageSize is how many objects are read at once, and how often
	// progress is saved; DefaultMigrationPage when 0.
	PageSize int64
	// LogEvery is the least time between two progress logs of a
	// resource; 10s when 0.
	LogEvery time.Duration
}

// MigrationResult is what a migration did to one resource in one run.
type MigrationResult struct {
	Resource       string // plural.group
	StorageVersion string
	// AlreadyDone: a migration to this storage version had completed; no
	// object was read.
	AlreadyDone bool
	// ResumedAfter is the key the run continued after ("" from the start).
	ResumedAfter string
	// Counts of objects by outcome.
	Migrated int64 // rewritten in the storage version
	Current  int64 // already in it
	Gone     int64 // deleted before the migration reached them
	Failed   int64 // not convertible, or changing too often; retried next run
}

// Examined is how many objects the run looked at.
func (m MigrationResult) Examined() int64 { return m.Migrated + m.Current + m.Gone + m.Failed }

// MigrateStorage migrates every resource of reg, one after the other (see
// MigrateResource). It stops at the first error, ctx's included; the
// results of the resources done so far are returned with it.
func (s *Store) MigrateStorage(ctx context.Context, reg *schemas.Registry, opts MigrateOptions) ([]MigrationResult, error) {
	var out []MigrationResult
	for _, g := range reg.Groups() {
		for _, r := range g.Resources {
			res, err := s.MigrateResource(ctx, r, opts)
			if err != nil {
				return out, err
			}
			out = append(out, res)
		}
	}
	return out, nil
}

// MigrateResource rewrites the stored objects of r that are not in r's
// storage version. Objects that cannot be converted are counted, logged
// and left; the migration is then not recorded as complete and the next
// run reads every object again. A storage error or the end of ctx stops
// the run; the next continues after the last page it finished.
func (s *Store) MigrateResource(ctx context.Context, r *schemas.Resource, opts MigrateOptions) (MigrationResult, error) {
	m := s.newMigration(r, opts)
	res := &m.res
	if r.StorageVersion == "" { // a registry built by hand: nothing to move to
		return *res, nil
	}
	state, err := s.loadMigrationState(ctx, r)
	if err != nil {
		return *res, err
	}
	if state.StorageVersion == r.StorageVersion && state.Done {
		res.AlreadyDone = true
		m.metrics.finished()
		s.log.Debug("storage migration already done", m.attrs()...)
		return *res, nil
	}
	// A state for this storage version is a migration stopped before it
	// was done; one for another, the storage version changed since.
	resuming, previous := state.StorageVersion == r.StorageVersion, state.StorageVersion
	if !resuming {
		state = migrationState{StorageVersion: r.StorageVersion}
	}
	res.ResumedAfter = state.LastKey
	if resuming {
		m.announce("")
	} else if previous != "" {
		m.announce(previous)
	}
	start := time.Now()
	if err := m.run(ctx, &state); err != nil {
		stopped := slog.LevelWarn
		if ctx.Err() != nil { // shutting down: the next start continues
			stopped = slog.LevelInfo
		}
		s.log.Log(ctx, stopped, "storage migration stopped", append(m.counts(), slog.String("lastKey", state.LastKey), slog.Any("err", err))...)
		return *res, err
	}
	if !m.active {
		// Every object was in the storage version already. Nothing is
		// recorded: a write would move every resourceVersion for nothing
		// (and a new resource has no object yet); the next start checks
		// again.
		m.metrics.finished()
		s.log.Debug("storage migration: every object in the storage version", m.counts()...)
		return *res, nil
	}
	// Failures of the runs this one continues count too.
	state.Done = state.Failed == 0
	if !state.Done {
		state.LastKey, state.Failed = "", 0 // read everything again next time
	}
	if err := s.saveMigrationState(ctx, r, state); err != nil {
		return *res, err
	}
	if !state.Done {
		s.log.Warn("storage migration incomplete: objects left in an old version", m.counts()...)
		return *res, nil
	}
	m.metrics.finished()
	s.log.Info("storage migration done", append(m.counts(), slog.Duration("took", time.Since(start).Round(time.Millisecond)))...)
	return *res, nil
}

// migration is one run over one resource.
type migration struct {
	s        *Store
	storage  storage.Storage
	r        *schemas.Resource
	target   string // the storage version's apiVersion
	page     int64
	logEvery time.Duration
	lastLog  time.Time
	metrics  migrationMetrics
	res      MigrationResult
	state    *migrationState // saved after every page
	// active: an object had to move (or a migration was under way), so
	// the state is kept; previous is the version objects move from.
	active   bool
	previous string
}

// announce logs the start of a migration that has something to do, once;
// from is the version objects move from, when known.
func (m *migration) announce(from string) {
	if m.active {
		return
	}
	m.active, m.previous = true, from
	m.s.log.Info("storage migration started", append(m.attrs(), slog.String("resumeAfter", m.res.ResumedAfter))...)
}

// versionOf is the version part of obj's apiVersion.
func versionOf(obj []byte) string {
	av := gjson.GetBytes(obj, "apiVersion").Str
	return av[strings.LastIndexByte(av, '/')+1:]
}

func (s *Store) newMigration(r *schemas.Resource, opts MigrateOptions) *migration {
	page := opts.PageSize
	if page <= 0 {
		page = DefaultMigrationPage
	}
	every := opts.LogEvery
	if every <= 0 {
		every = 10 * time.Second
	}
	return &migration{s: s, storage: s.rawStorage(), r: r, target: r.Group + "/" + r.StorageVersion,
		page: page, logEvery: every, lastLog: time.Now(), metrics: metricsFor(r),
		res: MigrationResult{Resource: r.GroupResource(), StorageVersion: r.StorageVersion}}
}

// run pages through the keys after state.LastKey, saving state after
// every page.
func (m *migration) run(ctx context.Context, state *migrationState) error {
	m.state = state
	m.metrics.started()
	opts := storage.ListOptions{Limit: m.page}
	if state.LastKey != "" {
		opts.StartKey = state.LastKey + "\x00"
	}
	return eachPage(ctx, m.storage, m.s.resourcePrefix(m.r), opts, false, "migrate "+m.res.Resource+": list", func(page storage.ListResult) error {
		m.metrics.pending(int64(len(page.Items)) + page.Remaining)
		for i, kv := range page.Items {
			if err := m.object(ctx, kv); err != nil {
				return err
			}
			m.metrics.pending(int64(len(page.Items)-i-1) + page.Remaining)
		}
		if len(page.Items) > 0 {
			state.LastKey = page.Items[len(page.Items)-1].Key
			if m.active {
				if err := m.s.saveMigrationState(ctx, m.r, *state); err != nil {
					return err
				}
			}
		}
		m.progress(page.Remaining)
		return nil
	})
}

// object migrates one object and counts the outcome. Only storage errors
// (and ctx's end) are returned.
func (m *migration) object(ctx context.Context, kv storage.KeyValue) error {
	for attempt := 1; ; attempt++ {
		if storedIn(kv.Value, m.target) {
			m.count(resultCurrent)
			return nil
		}
		if attempt > migrateAttempts {
			m.s.log.Warn("storage migration: object keeps changing; left for the next run", slog.String("key", kv.Key))
			m.count(resultFailed)
			return nil
		}
		m.announce(versionOf(kv.Value))
		out, err := m.s.converterOf(m.r).Convert(kv.Value, m.target)
		if err != nil {
			m.s.log.Warn("storage migration: cannot convert", slog.String("key", kv.Key),
				slog.String("apiVersion", gjson.GetBytes(kv.Value, "apiVersion").Str), slog.Any("err", err))
			m.count(resultFailed)
			return nil
		}
		_, err = m.storage.Update(ctx, kv.Key, out, kv.ModRevision)
		switch {
		case err == nil:
			m.count(resultMigrated)
			return nil
		case errors.Is(err, storage.ErrKeyNotFound):
			m.count(resultGone)
			return nil
		case !errors.Is(err, storage.ErrConflict):
			return fmt.Errorf("engine: migrate %s: %w", kv.Key, err)
		}
		// A client wrote the object since it was read: read it again.
		m.metrics.conflict()
		if kv, err = m.storage.Get(ctx, kv.Key); errors.Is(err, storage.ErrKeyNotFound) {
			m.count(resultGone)
			return nil
		} else if err != nil {
			return fmt.Errorf("engine: migrate %s: %w", kv.Key, err)
		}
	}
}

func (m *migration) count(result string) {
	switch result {
	case resultMigrated:
		m.res.Migrated++
	case resultCurrent:
		m.res.Current++
	case resultGone:
		m.res.Gone++
	case resultFailed:
		m.res.Failed++
		m.state.Failed++
	}
	m.metrics.objects(result)
}

// progress logs the counts at most every logEvery, once the migration
// has something to do.
func (m *migration) progress(remaining int64) {
	if !m.active || time.Since(m.lastLog) < m.logEvery {
		return
	}
	m.lastLog = time.Now()
	m.s.log.Info("storage migration progress", append(m.counts(), slog.Int64("pending", remaining))...)
}

func (m *migration) attrs() []any {
	attrs := []any{slog.String("resource", m.res.Resource), slog.String("storageVersion", m.r.StorageVersion)}
	if m.previous != "" {
		attrs = append(attrs, slog.String("previous", m.previous))
	}
	return attrs
}

func (m *migration) counts() []any {
	return append(m.attrs(), slog.Int64("migrated", m.res.Migrated), slog.Int64("current", m.res.Current),
		slog.Int64("gone", m.res.Gone), slog.Int64("failed", m.res.Failed))
}

// rawStorage is the Store's storage without the finalizing layer: a
// migration write changes no finalizer and no owner, so it needs neither
// the deletion of an emptied terminating object nor the collector's
// trigger.
func (s *Store) rawStorage() storage.Storage {
	if f, ok := s.storage.(finalizingStorage); ok {
		return f.Storage
	}
	return s.storage
}
