package server

import (
	"context"

	"github.com/specd-io/specd/engine"
)

// failingStorage is a storage that answers every call with err, as an
// etcd that times out does.
type failingStorage struct{ err error }

var _ engine.Storage = failingStorage{}

func (f failingStorage) Create(context.Context, string, []byte) (int64, error) { return 0, f.err }
func (f failingStorage) Get(context.Context, string) (engine.KeyValue, error) {
	return engine.KeyValue{}, f.err
}
func (f failingStorage) List(context.Context, string, engine.ListOptions) (engine.ListResult, error) {
	return engine.ListResult{}, f.err
}
func (f failingStorage) Update(context.Context, string, []byte, int64) (int64, error) {
	return 0, f.err
}
func (f failingStorage) Delete(context.Context, string, int64) (engine.KeyValue, error) {
	return engine.KeyValue{}, f.err
}
func (f failingStorage) Watch(context.Context, string, int64) <-chan engine.Event {
	ch := make(chan engine.Event, 1)
	ch <- engine.Event{Err: f.err}
	close(ch)
	return ch
}
