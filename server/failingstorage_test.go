package server

import (
	"context"

	"github.com/specd-io/specd/engine/storage"
)

// failingStorage is a storage that answers every call with err, as an
// etcd that times out does.
type failingStorage struct{ err error }

var _ storage.Storage = failingStorage{}

func (f failingStorage) Create(context.Context, string, []byte) (int64, error) { return 0, f.err }
func (f failingStorage) Get(context.Context, string) (storage.KeyValue, error) {
	return storage.KeyValue{}, f.err
}
func (f failingStorage) List(context.Context, string, storage.ListOptions) (storage.ListResult, error) {
	return storage.ListResult{}, f.err
}
func (f failingStorage) Update(context.Context, string, []byte, int64) (int64, error) {
	return 0, f.err
}
func (f failingStorage) Delete(context.Context, string, int64) (storage.KeyValue, error) {
	return storage.KeyValue{}, f.err
}
func (f failingStorage) Watch(context.Context, string, int64) <-chan storage.Event {
	ch := make(chan storage.Event, 1)
	ch <- storage.Event{Err: f.err}
	close(ch)
	return ch
}
