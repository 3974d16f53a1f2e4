package backup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// Mode says what Restore does with a table that holds entities.
type Mode int

const (
	// IntoEmpty refuses a table that holds any entity (ErrNotEmpty).
	IntoEmpty Mode = iota
	// Replace makes the table hold exactly the backup's entities: each is
	// written whole (upsert with replace), and the table's other entities
	// are deleted.
	Replace
	// AddMissing writes the backup's entities whose keys the table lacks
	// and leaves the table's own entities as they are.
	AddMissing
)

// RestoreOptions choose the backup and tune Restore; nil means the last
// backup into an empty table. They are never modified.
type RestoreOptions struct {
	// ID names the backup to restore; "" means the last one, or with
	// Before, the last one finished at or before that time.
	ID     string
	Before time.Time
	// Mode is what to do with a table that holds entities; IntoEmpty by
	// default.
	Mode Mode
	// TimestampProperty, when set, keeps each entity's original Timestamp
	// (which the service sets anew on every write) in a property of that
	// name, an Edm.DateTime. An entity that has such a property already
	// stops the restore with a *tablekit.ValidationError.
	TimestampProperty string
	// InFlight is the transactions in flight (batch.WriteOptions.InFlight);
	// Parallelism the requests of the keys-only scan of the table that
	// Replace and AddMissing make. Zero means their packages' defaults.
	InFlight, Parallelism int
	// Progress, when set, is batch.WriteOptions.Progress of the restore's
	// writes: a caller's progress display, or its own record of them.
	Progress func(batch.Progress)
}

// Restored reports a Restore.
type Restored struct {
	Backup  Info // the backup restored
	Written int  // entities written
	Deleted int  // entities of the table deleted (Replace)
}

// Restore writes the table name of svc as of a backup in st, creating it
// if missing, after checking every file it needs. Errors: ErrNoBackup,
// ErrCorrupt, ErrNotEmpty before any write; tablekit.ErrInvalid; the
// store's, the table's and batch.WriteSeq's (tablekit.ErrIncomplete).
func Restore(ctx context.Context, svc *table.Service, name string, st Store, o *RestoreOptions) (Restored, error) {
	var opts RestoreOptions
	if o != nil {
		opts = *o
	}
	t, err := table.New[table.RawEntity](svc, name)
	if err != nil {
		return Restored{}, err
	}
	if err := opts.check(svc, name); err != nil {
		return Restored{}, err
	}
	s, err := openState(ctx, st, opts.ID, opts.Before)
	if err != nil {
		return Restored{}, err
	}
	state := s.keys
	if err := svc.CreateTable(ctx, name); err != nil {
		return Restored{}, err
	}
	var existing keySet
	if opts.Mode == IntoEmpty {
		for _, err := range query.New(t).Select().Limit(1).All(ctx) {
			if err != nil {
				return Restored{}, err
			}
			return Restored{}, fmt.Errorf("%w: %s (choose Replace or AddMissing)", ErrNotEmpty, name)
		}
	} else if existing, err = scanKeys(ctx, t, opts.Parallelism); err != nil {
		return Restored{}, err
	}

	res := Restored{Backup: *s.target}
	var readErr error
	ops := func(yield func(batch.Op[table.RawEntity]) bool) {
		readErr = s.latest(ctx, st, t, func(e table.RawEntity) (bool, error) {
			k := key{e.PartitionKey, e.RowKey}
			if _, ok := existing[k]; ok && opts.Mode == AddMissing {
				return true, nil
			}
			if opts.TimestampProperty != "" {
				p, err := withTimestamp(e, opts.TimestampProperty)
				if err != nil {
					return false, err
				}
				e.Properties = p
			}
			e.ETag = ""
			return yield(batch.Op[table.RawEntity]{Entity: e}), nil
		})
	}
	wo := &batch.WriteOptions{InFlight: opts.InFlight, Progress: opts.Progress}
	sum, err := batch.WriteSeq(ctx, t, ops, wo)
	res.Written = sum.Ops
	if readErr != nil {
		return res, readErr
	}
	if err != nil {
		return res, err
	}
	if opts.Mode == Replace {
		var dels []batch.Op[table.RawEntity]
		for k := range existing {
			if _, ok := state[k]; !ok {
				dels = append(dels, batch.Op[table.RawEntity]{Kind: batch.Delete, PartitionKey: k.pk, RowKey: k.rk, ETag: table.AnyETag})
			}
		}
		if len(dels) > 0 {
			sum, err := batch.Write(ctx, t, dels, wo)
			res.Deleted = sum.Ops
			if err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

func (o *RestoreOptions) check(svc *table.Service, name string) error {
	switch {
	case o.Mode < IntoEmpty || o.Mode > AddMissing:
		return errmap.Invalidf("restore", "Mode", "unknown value %d", o.Mode)
	case o.ID != "" && !o.Before.IsZero():
		return errmap.Invalid("restore", "ID", "and Before both set: choose one")
	case o.InFlight < 0:
		return errmap.Invalid("restore", "InFlight", "is negative")
	case o.Parallelism < 0 || o.Parallelism > query.MaxParallelism:
		return errmap.Invalidf("restore", "Parallelism", "want 0 to %d", query.MaxParallelism)
	}
	if o.ID != "" {
		if err := CheckName(manifestName(o.ID)); err != nil {
			return errmap.Invalid("restore", "ID", "is not a backup ID")
		}
	}
	if p := o.TimestampProperty; p != "" {
		// The codec's rules for a property name, through a write that is
		// checked and never sent.
		et, err := table.New[table.Entity](svc, name)
		if err != nil {
			return err
		}
		e := table.NewEntity("k", "k")
		e.Properties = map[string]any{p: time.Unix(0, 0)}
		if _, err := et.Marshal(e); err != nil || p == "Timestamp" {
			return &tablekit.ValidationError{Operation: "restore", Field: "TimestampProperty", Index: -1, Rule: "is not a property name an entity may have", Err: err}
		}
	}
	return nil
}

// pick returns the backup of id, or the last finished at or before
// before, or the last.
func pick(infos []Info, id string, before time.Time) (*Info, error) {
	if id != "" {
		if in, ok := find(infos, id); ok {
			return in, nil
		}
		return nil, fmt.Errorf("%w: no backup %s", ErrNoBackup, id)
	}
	for i := len(infos) - 1; i >= 0; i-- {
		if before.IsZero() || !infos[i].Finished.After(before) {
			return &infos[i], nil
		}
	}
	if before.IsZero() {
		return nil, fmt.Errorf("%w: the store holds none", ErrNoBackup)
	}
	return nil, fmt.Errorf("%w: none finished by %s", ErrNoBackup, before.UTC().Format(time.RFC3339))
}

// entities hands each to each entity of the chain's data files, the
// newest backup first, so that the first version of a key each sees is
// its latest. each returns false to stop.
func entities(ctx context.Context, st Store, ch []*Info, t *table.Table[table.RawEntity], each func(table.RawEntity) (bool, error)) error {
	stop := errors.New("stop")
	for _, b := range ch {
		for _, f := range b.dataFiles() {
			err := readLines(ctx, st, f, func(line []byte) error {
				e, err := t.Unmarshal(line)
				if err != nil {
					return &CorruptError{File: f.Name, Reason: "an entity cannot be read", Err: err}
				}
				more, err := each(e)
				if err == nil && !more {
					err = stop
				}
				return err
			})
			if err == stop {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// withTimestamp returns e's properties with name set to e's Timestamp, an
// Edm.DateTime.
func withTimestamp(e table.RawEntity, name string) (json.RawMessage, error) {
	props := bytes.TrimSpace(e.Properties)
	if len(props) < 2 {
		props = []byte("{}")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(props, &members); err != nil {
		return nil, err
	}
	if _, ok := members[name]; ok {
		return nil, &tablekit.ValidationError{Operation: "restore", Field: "TimestampProperty", Index: -1,
			Rule: "names a property the entity has", Detail: e.PartitionKey + "/" + e.RowKey}
	}
	n, _ := json.Marshal(name)
	ts, _ := json.Marshal(e.Timestamp.UTC().Format(wire.DateTimeLayout))
	out := append([]byte(nil), props[:len(props)-1]...)
	if len(members) > 0 {
		out = append(out, ',')
	}
	out = append(out, n[:len(n)-1]...)
	out = append(out, `@odata.type":"Edm.DateTime",`...)
	out = append(out, n...)
	out = append(out, ':')
	out = append(out, ts...)
	return append(out, '}'), nil
}

// scanKeys reads the table's keys with a keys-only parallel scan.
func scanKeys(ctx context.Context, t *table.Table[table.RawEntity], parallelism int) (keySet, error) {
	r := &run{t: t, opts: Options{Parallelism: parallelism}, base: query.New(t)}
	if r.opts.Parallelism == 0 {
		r.opts.Parallelism = query.DefaultParallelism
	}
	if err := r.segment(ctx); err != nil {
		return nil, err
	}
	return r.keys(ctx)
}
