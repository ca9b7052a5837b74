package statusapi

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
)

// kind is one of the group's kinds.
type kind struct {
	Kind, Plural string
}

var (
	schemaFileKind = kind{"SchemaFile", "schemafiles"}
	reloadKind     = kind{"SchemaReload", "schemareloads"}
	conversionKind = kind{"Conversion", "conversions"}
	migrationKind  = kind{"StorageMigration", "storagemigrations"}
	pluginKind     = kind{"Plugin", "plugins"}
	replicaKind    = kind{"Replica", "replicas"}
	etcdMemberKind = kind{"EtcdMember", "etcdmembers"}
)

// publisher writes the objects of each kind, and only those that
// changed: it is their one writer, so it knows what is stored.
type publisher struct {
	cfg Config
	// stored are the objects written, by kind and name.
	stored map[kind]map[string]stored
	// proven remembers when each resource's conversion was last proven
	// (conversions.go).
	proven provenAt
	// loaded remembers when each file's content was loaded
	// (schemafiles.go).
	loaded loadedAt
}

type stored struct {
	status   []byte
	meta     meta
	revision int64
}

// meta is the metadata of an object: set when it is created, kept.
type meta struct {
	Name              string `json:"name"`
	UID               string `json:"uid"`
	CreationTimestamp string `json:"creationTimestamp"`
}

type object struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   meta            `json:"metadata"`
	Status     json.RawMessage `json:"status"`
}

func newPublisher(cfg Config) *publisher {
	return &publisher{cfg: cfg, stored: map[kind]map[string]stored{}, proven: provenAt{}, loaded: loadedAt{}}
}

// publish makes the stored objects of k those of want (name -> status):
// creates the new, updates the changed, deletes the gone.
func (p *publisher) publish(ctx context.Context, k kind, want map[string]any) {
	have := p.stored[k]
	if have == nil {
		have = map[string]stored{}
		p.stored[k] = have
	}
	for name, status := range want {
		b, err := json.Marshal(status)
		if err != nil {
			p.cfg.Logger.Error("status.specd.io: encode", "kind", k.Kind, "name", name, "err", err)
			continue
		}
		if old, ok := have[name]; !ok || !bytes.Equal(old.status, b) {
			p.write(ctx, k, name, b, old, ok)
		}
	}
	for name, old := range have {
		if _, ok := want[name]; !ok {
			p.remove(ctx, k, name, old)
		}
	}
}

func (p *publisher) key(k kind, name string) string {
	return Prefix(p.cfg.Keys) + k.Plural + "/" + name
}

// write creates or updates the object name of k with status.
func (p *publisher) write(ctx context.Context, k kind, name string, status []byte, old stored, exists bool) {
	m := old.meta
	if !exists {
		m = meta{Name: name, UID: string(uuid.NewUUID()), CreationTimestamp: time.Now().UTC().Format(time.RFC3339)}
	}
	b, err := json.Marshal(object{APIVersion: Group + "/" + Version, Kind: k.Kind, Metadata: m, Status: status})
	if err != nil {
		p.cfg.Logger.Error("status.specd.io: encode", "kind", k.Kind, "name", name, "err", err)
		return
	}
	var rev int64
	if exists {
		rev, err = p.cfg.Memory.Update(ctx, p.key(k, name), b, old.revision)
	} else {
		rev, err = p.cfg.Memory.Create(ctx, p.key(k, name), b)
	}
	if err != nil {
		// Only this publisher writes: the memory storage fails no write
		// it is given in order.
		p.cfg.Logger.Error("status.specd.io: write", "kind", k.Kind, "name", name, "err", err)
		return
	}
	p.stored[k][name] = stored{status: status, meta: m, revision: rev}
}

func (p *publisher) remove(ctx context.Context, k kind, name string, old stored) {
	if _, err := p.cfg.Memory.Delete(ctx, p.key(k, name), old.revision); err != nil {
		p.cfg.Logger.Error("status.specd.io: delete", "kind", k.Kind, "name", name, "err", err)
		return
	}
	delete(p.stored[k], name)
}
