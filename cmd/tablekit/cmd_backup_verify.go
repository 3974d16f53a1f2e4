package main

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"os"
	"time"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/table"
)

// backupverify.go is verify's third kind of DST: the state of a table as
// of a backup, read through backup.Entities and sorted (spillsort.go) to
// be merged with the table's scan.

// isBackupDest says whether verify's DST is a backup store: a blob
// container URL, or a directory that exists (an export file is never a
// directory).
func isBackupDest(dst string) bool {
	if isBlobDest(dst) {
		return true
	}
	fi, err := os.Stat(dst)
	return err == nil && fi.IsDir()
}

// backupFlags are verify's flags for a backup DEST.
type backupFlags struct{ at, destSAS string }

func (f *backupFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.at, "at", "", "a backup DEST: the backup, its ID or a time (RFC 3339) for the last finished by then; default the last")
	fs.StringVar(&f.destSAS, "dest-sas", "", "SAS token for a blob container DEST")
}

// check refuses what does not apply to the DST verify was given; bk is
// a backup DST, target the --to-* flags given.
func (f *backupFlags) check(bk bool, filter, target string) error {
	switch {
	case !bk && (f.at != "" || f.destSAS != ""):
		return usagef("--at and --dest-sas are for a backup DEST: an existing directory or a blob container URL")
	case bk && filter != "":
		return usagef("--filter cannot be applied to a backup, which holds the whole table: compare with --partition or --prefix, or without a scope")
	case bk && target != "":
		return usagef("a backup DEST is not a table: --to-connection-string and --to-account-url are for a table")
	}
	return nil
}

// backupState is the backup verify compares with and its entities.
type backupState struct {
	info backup.Info
	ents iter.Seq2[table.RawEntity, error]
}

// open finds the backup --at names in DEST (pos[1]) and checks its files,
// before anything else is read; the account key of the table's
// connection string signs requests to a container of the same account.
func (f *backupFlags) open(ctx context.Context, e *env, conn *connection, pos []string) (*backupState, error) {
	st, err := openDest(pos[1], f.destSAS, conn.connString())
	if err != nil {
		return nil, err
	}
	t, err := table.New[table.RawEntity](conn.svc, pos[0])
	if err != nil {
		return nil, err
	}
	id, before := parseAt(f.at)
	in, ents, err := backup.Entities(ctx, t, st, &backup.ReadOptions{ID: id, Before: before})
	if err != nil {
		return nil, backupUsage(err)
	}
	fmt.Fprintf(e.stderr, "tablekit verify: %s as of %s backup %s (finished %s, %d entities)\n",
		pos[0], kind(in), in.ID, in.Finished.Format(time.RFC3339), in.Entities)
	return &backupState{info: in, ents: ents}, nil
}

// rows yields the backup's entities keep accepts, in key order.
func (s *backupState) rows(keep func(pk, rk string) bool, lim runLimits) iter.Seq2[row, error] {
	kept := func(yield func(row, error) bool) {
		for e, err := range s.ents {
			if err != nil {
				yield(row{}, err)
				return
			}
			if keep(e.PartitionKey, e.RowKey) && !yield(rawRow(e), nil) {
				return
			}
		}
	}
	return rowSpill.sorted(kept, lim)
}

// parseAt reads --at: a time (RFC 3339) is the last backup finished by
// then, anything else a backup's ID.
func parseAt(at string) (id string, before time.Time) {
	if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
		return "", t
	}
	return at, time.Time{}
}
