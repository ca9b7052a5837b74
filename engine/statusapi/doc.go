// Package statusapi serves what specd itself is doing as read-only
// resources of the group status.specd.io/v1alpha1 (schemas/builtin's
// status.specd.io file): SchemaFile, SchemaReload, Conversion,
// StorageMigration, Plugin, Replica and EtcdMember. It builds them from
// what the parts that know already hold (serving.Set's files and reload
// outcomes, the migration states engine/migrate keeps in storage, the
// plugin host's health, the election of engine/leader and etcd's member
// list, read every ClusterInterval) and writes them, as they change, into a memstorage.Storage
// that memstorage.Route puts under the group's key prefix. The engine
// then serves them as it serves any resource: get, list, watch, Table
// output with their printer columns, field selectors, behind the same
// authentication, RBAC, audit and fairness as every other request. The
// schema file allows get, list and watch only, so no client writes them.
//
// The objects describe the replica that answers: what it loaded and
// which plugins it runs. StorageMigration, Replica and EtcdMember objects
// mirror what etcd holds, so every replica answers alike; memstorage's revisions keep
// a watch from being resumed on another replica's history.
package statusapi
