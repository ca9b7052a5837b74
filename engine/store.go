package engine

import (
	"log/slog"
	"time"

	"github.com/specd-io/specd/converters"
)

// Store serves the objects of every resource from one Storage. It holds no
// schema state: each call names the resource version it serves, taken from
// the registry snapshot of the request.
type Store struct {
	storage   Storage
	converter converters.Converter
	prefix    string
	now       func() time.Time
	log       *slog.Logger
	// genName makes a name from generateName; tests replace it.
	genName func(base string) string
}

// Options configure a Store.
type Options struct {
	// Prefix is the key prefix of every object; "/specd/" when empty.
	Prefix string
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Converter converts between a resource's versions; converters.None
	// when nil.
	Converter converters.Converter
}

// NewStore returns a Store on storage.
func NewStore(storage Storage, opts Options) *Store {
	if opts.Prefix == "" {
		opts.Prefix = "/specd/"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Converter == nil {
		opts.Converter = converters.None{}
	}
	return &Store{storage: storage, converter: opts.Converter, prefix: opts.Prefix, now: opts.Now, log: opts.Logger,
		genName: generateName}
}

// FieldValidation is the fieldValidation query parameter.
type FieldValidation string

const (
	FieldValidationStrict FieldValidation = "Strict"
	FieldValidationWarn   FieldValidation = "Warn"
	FieldValidationIgnore FieldValidation = "Ignore"
)

// WriteOptions are the options every write takes.
type WriteOptions struct {
	FieldValidation FieldValidation // Warn when empty
	DryRun          bool            // validate everything, store nothing
}

// DeleteOptions are the options of a delete.
type DeleteOptions struct {
	DryRun bool
	// Preconditions, when set, must match the stored object.
	UID             string
	ResourceVersion string
}

// ListRequest is the query parameters of a list the engine understands.
type ListRequest struct {
	Limit    int64
	Continue string
	Selector Selector
}

// Result is what a write answers: the object in the request's version and
// the warnings to send in Warning headers.
type Result struct {
	Object   []byte
	Warnings []string
}
