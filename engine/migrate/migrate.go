package migrate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/storage"
	"github.com/specd-io/specd/schemas"
)

// DefaultPageSize is how many objects a migration reads at once.
const DefaultPageSize = 500

// migrateAttempts bounds the rewrites of one object that keeps changing
// under the migration; it is left for the next run after that.
const migrateAttempts = 8

// Options configure a storage version migration.
type Options struct {
	// PageSize is how many objects are read at once, and how often
	// progress is saved; DefaultPageSize when 0.
	PageSize int64
	// LogEvery is the least time between two progress logs of a
	// resource; 10s when 0.
	LogEvery time.Duration
}

// Result is what a migration did to one resource in one run.
type Result struct {
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
	// Complete: every object is in the storage version now (AlreadyDone,
	// or a run that left none behind, with the runs it continued).
	Complete bool
}

// Examined is how many objects the run looked at.
func (r Result) Examined() int64 { return r.Migrated + r.Current + r.Gone + r.Failed }

// Migrator migrates the stored objects of one Store, through its Upkeep.
type Migrator struct {
	upkeep *engine.Upkeep
	log    *slog.Logger
}

// New returns a Migrator of the objects upkeep reaches; log is slog.Default() when
// nil.
func New(upkeep *engine.Upkeep, log *slog.Logger) *Migrator {
	if log == nil {
		log = slog.Default()
	}
	return &Migrator{upkeep: upkeep, log: log}
}

// MigrateRegistry migrates every resource of reg, one after the other
// (see MigrateResource). It stops at the first error, ctx's included; the
// results of the resources done so far are returned with it.
func (mg *Migrator) MigrateRegistry(ctx context.Context, reg *schemas.Registry, opts Options) ([]Result, error) {
	var out []Result
	for _, g := range reg.Groups() {
		for _, r := range g.Resources {
			if r.StoredWith != nil {
				continue // its objects are StoredWith's, migrated with it
			}
			res, err := mg.MigrateResource(ctx, r, opts)
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
func (mg *Migrator) MigrateResource(ctx context.Context, r *schemas.Resource, opts Options) (Result, error) {
	m := mg.newMigration(r, opts)
	if r.StorageVersion == "" { // a registry built by hand: nothing to move to
		return m.res, nil
	}
	state, err := mg.loadState(ctx, r)
	if err != nil {
		return m.res, err
	}
	if state.StorageVersion == r.StorageVersion && state.Done {
		m.res.AlreadyDone, m.res.Complete = true, true
		m.metrics.finished()
		mg.log.Debug("storage migration already done", m.attrs()...)
		return m.res, nil
	}
	// A state for this storage version is a migration stopped before it
	// was done; one for another, the storage version changed since.
	resuming, previous := state.StorageVersion == r.StorageVersion, state.StorageVersion
	if !resuming {
		state = migrationState{StorageVersion: r.StorageVersion}
	}
	m.res.ResumedAfter = state.LastKey
	if resuming {
		m.announce("")
	} else if previous != "" {
		m.announce(previous)
	}
	err = m.finish(ctx, &state)
	return m.res, err
}

// finish runs m from state and records how it ended.
func (m *migration) finish(ctx context.Context, state *migrationState) error {
	start := time.Now()
	if err := m.run(ctx, state); err != nil {
		stopped := slog.LevelWarn
		if ctx.Err() != nil { // shutting down: the next start continues
			stopped = slog.LevelInfo
		}
		m.log.Log(ctx, stopped, "storage migration stopped", append(m.counts(), slog.String("lastKey", state.LastKey), slog.Any("err", err))...)
		return err
	}
	if !m.active {
		// Every object was in the storage version already. Nothing is
		// recorded: a write would move every resourceVersion for nothing
		// (and a new resource has no object yet); the next start checks
		// again.
		m.metrics.finished()
		m.res.Complete = true
		m.log.Debug("storage migration: every object in the storage version", m.counts()...)
		return nil
	}
	// Failures of the runs this one continues count too.
	state.Done = state.Failed == 0
	if !state.Done {
		state.LastKey, state.Failed = "", 0 // read everything again next time
	}
	if err := m.mg.saveState(ctx, m.r, *state); err != nil {
		return err
	}
	if !state.Done {
		m.log.Warn("storage migration incomplete: objects left in an old version", m.counts()...)
		return nil
	}
	m.metrics.finished()
	m.res.Complete = true
	m.log.Info("storage migration done", append(m.counts(), slog.Duration("took", time.Since(start).Round(time.Millisecond)))...)
	return nil
}

// migration is one run over one resource.
type migration struct {
	mg       *Migrator
	log      *slog.Logger
	storage  storage.Storage
	r        *schemas.Resource
	target   string // the storage version's apiVersion
	page     int64
	logEvery time.Duration
	lastLog  time.Time
	metrics  migrationMetrics
	res      Result
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
	m.log.Info("storage migration started", append(m.attrs(), slog.String("resumeAfter", m.res.ResumedAfter))...)
}

// versionOf is the version part of obj's apiVersion.
func versionOf(obj []byte) string {
	av := gjson.GetBytes(obj, "apiVersion").Str
	return av[strings.LastIndexByte(av, '/')+1:]
}

// storedIn reports whether obj's apiVersion is apiVersion.
func storedIn(obj []byte, apiVersion string) bool {
	return gjson.GetBytes(obj, "apiVersion").Str == apiVersion
}

func (mg *Migrator) newMigration(r *schemas.Resource, opts Options) *migration {
	page := opts.PageSize
	if page <= 0 {
		page = DefaultPageSize
	}
	every := opts.LogEvery
	if every <= 0 {
		every = 10 * time.Second
	}
	return &migration{mg: mg, log: mg.log, storage: mg.upkeep.RawStorage(), r: r, target: schemas.APIVersion(r.Group, r.StorageVersion),
		page: page, logEvery: every, lastLog: time.Now(), metrics: metricsFor(r),
		res: Result{Resource: r.GroupResource(), StorageVersion: r.StorageVersion}}
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
	return eachPage(ctx, m.storage, m.mg.upkeep.Keys().Resource(m.r), opts, false, "migrate "+m.res.Resource+": list", func(page storage.ListResult) error {
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
				if err := m.mg.saveState(ctx, m.r, *state); err != nil {
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
		// A stale value (an old encryption key) is rewritten as one in
		// an old version is: the write encrypts it with the first key.
		if storedIn(kv.Value, m.target) && !kv.Stale {
			m.count(resultCurrent)
			return nil
		}
		if attempt > migrateAttempts {
			m.log.Warn("storage migration: object keeps changing; left for the next run", slog.String("key", kv.Key))
			m.count(resultFailed)
			return nil
		}
		m.announce(versionOf(kv.Value))
		out, err := m.mg.upkeep.ToStorageVersion(m.r, kv.Value)
		if err != nil {
			m.log.Warn("storage migration: cannot convert", slog.String("key", kv.Key),
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
			return fmt.Errorf("migrate: rewrite %s: %w", kv.Key, err)
		}
		// A client wrote the object since it was read: read it again.
		m.metrics.conflict()
		if kv, err = m.storage.Get(ctx, kv.Key); errors.Is(err, storage.ErrKeyNotFound) {
			m.count(resultGone)
			return nil
		} else if err != nil {
			return fmt.Errorf("migrate: read %s again: %w", kv.Key, err)
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
	m.log.Info("storage migration progress", append(m.counts(), slog.Int64("pending", remaining))...)
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
