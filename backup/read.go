package backup

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/table"
)

// ReadOptions choose the backup Entities reads; nil means the last. They
// are never modified.
type ReadOptions struct {
	// ID names the backup; "" means the last one, or with Before, the last
	// one finished at or before that time.
	ID     string
	Before time.Time
}

// Entities returns the backup o chooses and the entities the table held
// as of it, each once, in no key order: what Restore writes, for a caller
// that compares a table with a backup or writes it elsewhere. Every file
// it needs is checked against its SHA-256 before Entities returns.
// t decodes the stored entities (its backend's rules); nothing is read
// from its table. Errors: ErrNoBackup, ErrCorrupt, tablekit.ErrInvalid,
// the store's; the iterator yields a *CorruptError for a file damaged
// since the check.
func Entities(ctx context.Context, t *table.Table[table.RawEntity], st Store, o *ReadOptions) (Info, iter.Seq2[table.RawEntity, error], error) {
	opts, err := o.check()
	if err != nil {
		return Info{}, nil, err
	}
	s, err := openState(ctx, st, opts.ID, opts.Before)
	if err != nil {
		return Info{}, nil, err
	}
	seq := func(yield func(table.RawEntity, error) bool) {
		stopped := false
		err := s.latest(ctx, st, t, func(e table.RawEntity) (bool, error) {
			if !yield(e, nil) {
				stopped = true
				return false, nil
			}
			return true, nil
		})
		if err != nil && !stopped {
			yield(table.RawEntity{}, err)
		}
	}
	return *s.target, seq, nil
}

// Find returns the backup o chooses without reading its files: what a
// caller records to come back to the same backup (a resumed restore).
// Errors: ErrNoBackup, tablekit.ErrInvalid, the store's.
func Find(ctx context.Context, st Store, o *ReadOptions) (Info, error) {
	opts, err := o.check()
	if err != nil {
		return Info{}, err
	}
	infos, err := List(ctx, st)
	if err != nil {
		return Info{}, err
	}
	in, err := pick(infos, opts.ID, opts.Before)
	if err != nil {
		return Info{}, err
	}
	return *in, nil
}

func (o *ReadOptions) check() (ReadOptions, error) {
	var opts ReadOptions
	if o != nil {
		opts = *o
	}
	if opts.ID != "" && !opts.Before.IsZero() {
		return opts, errmap.Invalid("read", "ID", "and Before both set: choose one")
	}
	if opts.ID != "" {
		if err := CheckName(manifestName(opts.ID)); err != nil {
			return opts, errmap.Invalid("read", "ID", "is not a backup ID")
		}
	}
	return opts, nil
}

// state is a backup opened for reading: the backup, the chain of backups
// its data is in (itself first, back to a full one), every file of which
// was checked, and its key set.
type state struct {
	target *Info
	chain  []*Info
	keys   keySet
}

// openState finds the backup of id (or the last finished by before, or
// the last), checks the SHA-256 of every file a read of it needs and
// reads its key set.
func openState(ctx context.Context, st Store, id string, before time.Time) (*state, error) {
	infos, err := List(ctx, st)
	if err != nil {
		return nil, err
	}
	target, err := pick(infos, id, before)
	if err != nil {
		return nil, err
	}
	ch, err := chain(infos, target)
	if err != nil {
		return nil, err
	}
	keys, err := target.keys(ctx, st) // each keys file checked as it is read
	if err != nil {
		return nil, err
	}
	for _, b := range ch {
		for _, f := range b.dataFiles() {
			if err := verify(ctx, st, f); err != nil {
				return nil, err
			}
		}
	}
	return &state{target: target, chain: ch, keys: keys}, nil
}

// latest hands each the version as of the backup of each key of its key
// set, once, and fails when a key is in no data file of the chain (unless
// each stopped it by returning false).
func (s *state) latest(ctx context.Context, st Store, t *table.Table[table.RawEntity], each func(table.RawEntity) (bool, error)) error {
	done := make(map[key]bool, len(s.keys))
	stopped := false
	err := entities(ctx, st, s.chain, t, func(e table.RawEntity) (bool, error) {
		k := key{e.PartitionKey, e.RowKey}
		if _, ok := s.keys[k]; !ok || done[k] {
			return true, nil // deleted by then, or an older version
		}
		done[k] = true
		more, err := each(e)
		stopped = !more
		return more, err
	})
	if err != nil || stopped {
		return err
	}
	if len(done) != len(s.keys) {
		return &CorruptError{File: manifestName(s.target.ID), Reason: fmt.Sprintf("%d keys of its key set are in no data file of its chain", len(s.keys)-len(done))}
	}
	return nil
}
