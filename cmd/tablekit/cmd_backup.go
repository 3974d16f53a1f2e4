package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "backup", args: "TABLE DEST [--full] [--changes timestamp|etag] [--overlap D] [--parallel N] [--plan FILE --segment i/n [--id ID]] [--dest-sas SAS] [--dry-run [--price P]]",
		summary: "back up a table into a directory or a blob container: full the first time, then what changed and the keys deleted; prints the backup's ID",
		example: `tablekit backup orders /var/backups/orders                     # the ID is the last line of stdout
tablekit backup orders https://acct.blob.core.windows.net/backups/orders
tablekit backup orders /var/backups/orders --full
tablekit backup orders /var/backups/orders --plan orders.plan --segment 2/4   # one of 4 machines`,
		run: runJob(backupJob),
	})
	register(&command{
		name: "restore", args: "DEST TABLE [--at ID|TIME] [--mode empty|replace|add-missing] [--timestamp-property NAME] [--parallel N] [--checkpoint FILE] [--dest-sas SAS] [--dry-run [--price P]]",
		summary: "restore a table as of a backup (the last by default), creating it if missing; every file's checksum is checked first",
		example: `tablekit restore /var/backups/orders orders2
tablekit restore /var/backups/orders orders --at 2026-11-26T06:00:00Z --mode replace
tablekit restore /var/backups/orders orders2 --at 20261126T031500.123Z --timestamp-property OriginalTimestamp
tablekit restore /var/backups/orders orders2 --checkpoint restore.ckpt     # run again to resume`,
		run: runJob(restoreJob),
	})
	register(&command{
		name: "backups", args: "DEST [--keep N] [--dest-sas SAS]",
		summary: "list the backups in DEST; --keep N folds the older ones into a full backup from the stored files and removes them",
		example: `tablekit backups /var/backups/orders
tablekit backups https://acct.blob.core.windows.net/backups/orders --keep 7`,
		run: runJob(backupsJob),
	})
}

func backupJob() *jobCommand {
	var o backup.Options
	var changes, destSAS string
	var sf shareFlags
	var dry *dryRun
	return &jobCommand{name: "backup", args: 2, tables: 1,
		flags: func(fs *flag.FlagSet, _ *jobInput) {
			sf.register(fs)
			dry = registerDryRun(fs)
			fs.BoolVar(&o.Full, "full", false, "a full backup even when DEST holds backups of the table")
			fs.StringVar(&changes, "changes", "", "how to find changed entities: timestamp (Table Storage's default) or etag (Cosmos DB's default: each key's ETag against the previous backup's)")
			fs.DurationVar(&o.Overlap, "overlap", backup.DefaultOverlap, "how far before the previous backup's start a Timestamp scan begins (clock difference, late writes)")
			fs.IntVar(&o.Parallelism, "parallel", 0, "requests in flight (default 8)")
			fs.StringVar(&destSAS, "dest-sas", "", "SAS token for a blob container DEST")
		},
		check: func(in *jobInput) error {
			switch changes {
			case "":
			case "timestamp":
				o.Changes = backup.ChangesByTimestamp
			case "etag":
				o.Changes = backup.ChangesByETag
			default:
				return usagef("--changes %q: want timestamp or etag", changes)
			}
			if err := dry.check(checkpointFlags{}); err != nil {
				return err
			}
			var err error
			o.Share, err = sf.share(in.pos[0], in.e.getenv)
			if err == nil && dry.on && o.Share != nil {
				return usagef("--dry-run counts the whole table: drop --plan and --segment")
			}
			return err
		},
		act: func(ctx context.Context, in *jobInput) error {
			e, pos := in.e, in.pos
			if dry.on {
				return dryBackup(ctx, in, pos[0], dry)
			}
			st, err := openDest(pos[1], destSAS, in.src.connString())
			if err == nil {
				st, err = hookStore(e, st)
			}
			if err != nil {
				return err
			}
			gcExport.apply() // a scan and compressed chunks live, as an export's
			info, err := backup.Run(ctx, in.src.svc, pos[0], st, &o)
			if err != nil {
				return backupUsage(err)
			}
			if info.Pending > 0 {
				fmt.Fprintf(e.stderr, "tablekit backup: share %d/%d of backup %s of %s landed: %d entities stored, %d keys deleted, %d bytes; %d shares to go, the backup is listed once they land\n",
					o.Share.Index, o.Share.Count, info.ID, info.Table, info.Written, info.Deleted, info.Bytes, info.Pending)
				_, err = fmt.Fprintln(e.stdout, info.ID)
				return err
			}
			fmt.Fprintf(e.stderr, "tablekit backup: %s backup %s of %s: %d entities stored, %d keys deleted, %d entities in the table, %d bytes, %.1fs\n",
				kind(info), info.ID, info.Table, info.Written, info.Deleted, info.Entities, info.Bytes, info.Finished.Sub(info.Started).Seconds())
			_, err = fmt.Fprintln(e.stdout, info.ID)
			return err
		}}
}

func kind(in backup.Info) string {
	if in.Full {
		return "full"
	}
	return "incremental"
}

// connString is the connection's parsed connection string, if it had one.
func (c *connection) connString() *table.ConnectionString {
	if c == nil || !c.hasConn {
		return nil
	}
	return &c.conn
}

func restoreJob() *jobCommand {
	var at, mode, destSAS string
	var o backup.RestoreOptions
	var dry *dryRun
	return &jobCommand{name: "restore", args: 2,
		flags: func(fs *flag.FlagSet, in *jobInput) {
			dry = registerDryRun(fs)
			fs.StringVar(&at, "at", "", "the backup: its ID, or a time (RFC 3339) for the last backup finished by then; default the last")
			fs.StringVar(&mode, "mode", "empty", "when the table holds entities: empty (refuse), replace (make it the backup: write every entity, delete the others), add-missing (write the entities it lacks)")
			fs.StringVar(&o.TimestampProperty, "timestamp-property", "", "keep each entity's original Timestamp in this property (an Edm.DateTime)")
			fs.IntVar(&o.InFlight, "parallel", 0, "transactions in flight (default 4)")
			fs.StringVar(&destSAS, "dest-sas", "", "SAS token for a blob container DEST")
			in.sf.ckpt.register(fs)
		},
		check: func(in *jobInput) error {
			if bad := wire.CheckTableName(in.pos[1]); bad != nil {
				return &usageError{"table name " + bad.String()}
			}
			switch mode {
			case "empty":
				o.Mode = backup.IntoEmpty
			case "replace":
				o.Mode = backup.Replace
			case "add-missing":
				o.Mode = backup.AddMissing
			default:
				return usagef("--mode %q: want empty, replace or add-missing", mode)
			}
			o.ID, o.Before = parseAt(at)
			return dry.check(in.sf.ckpt)
		},
		act: func(ctx context.Context, in *jobInput) error {
			if dry.on {
				st, err := openDest(in.pos[0], destSAS, in.src.connString())
				if err != nil {
					return err
				}
				return dryRestore(ctx, in, st, in.pos[1], &o, dry)
			}
			return restore(ctx, in, at, mode, destSAS, &o)
		},
	}
}

// restore is restore's run, once connected.
func restore(ctx context.Context, in *jobInput, at, mode, destSAS string, o *backup.RestoreOptions) error {
	e, pos, conn := in.e, in.pos, in.src
	st, err := openDest(pos[0], destSAS, conn.connString())
	if err != nil {
		return err
	}
	j, err := newJob(ctx, e, "restore", in.sf.ckpt, jobID{{"backups", pos[0]}, {"table", pos[1]}, {"at", at}, {"mode", mode},
		{"timestamp-property", o.TimestampProperty}}, 0)
	if err != nil {
		return err
	}
	if j.cp.Complete {
		return j.completed("table " + pos[1] + " as of backup " + j.cp.Extra[extraBackup])
	}
	if err := resumeRestore(ctx, j, conn, st, pos[1], o); err != nil {
		return notEmpty(backupUsage(err))
	}
	o.Progress = j.committed()
	res, err := backup.Restore(ctx, conn.svc, pos[1], st, o)
	j.done = j.cp.Done + int64(res.Written)
	if err != nil {
		return j.end(notEmpty(backupUsage(err)))
	}
	if err := j.end(nil); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "tablekit restore: %s as of %s backup %s (%s): %d entities written, %d deleted\n",
		pos[1], kind(res.Backup), res.Backup.ID, res.Backup.Finished.Format(time.RFC3339), res.Written, res.Deleted)
	return nil
}

// extraBackup is the checkpoint's record of the backup a restore writes.
const extraBackup = "backup"

// resumeRestore makes a restore with --checkpoint resumable. Its first run
// records the backup it restores (so that a backup taken since does not
// change what a resumed run writes) once the table is found empty, as
// --mode empty requires, and before anything is written. A run that finds
// that record resumes: it restores the same backup, writing only what the
// table lacks (--mode empty or add-missing: what is there came from this
// backup) or everything again (replace). Without --checkpoint it does
// nothing.
func resumeRestore(ctx context.Context, j *job, conn *connection, st backup.Store, name string, o *backup.RestoreOptions) error {
	if j.sv.file == nil {
		return nil
	}
	if id := j.cp.Extra[extraBackup]; id != "" {
		j.sv.Extra = j.cp.Extra
		o.ID, o.Before = id, time.Time{}
		if o.Mode == backup.IntoEmpty {
			o.Mode = backup.AddMissing
		}
		fmt.Fprintf(j.e.stderr, "tablekit restore: resuming the restore of backup %s from %s\n", id, j.sv.file.path)
		return nil
	}
	in, err := backup.Find(ctx, st, &backup.ReadOptions{ID: o.ID, Before: o.Before})
	if err != nil {
		return err
	}
	if o.Mode == backup.IntoEmpty {
		t, err := table.New[table.RawEntity](conn.svc, name)
		if err != nil {
			return err
		}
		for _, err := range query.New(t).Select().Limit(1).All(ctx) {
			if errors.Is(err, tablekit.ErrTableNotFound) {
				break // created by the restore
			}
			if err != nil {
				return err
			}
			return fmt.Errorf("%w: %s", backup.ErrNotEmpty, name)
		}
	}
	o.ID, o.Before = in.ID, time.Time{}
	j.sv.Extra = map[string]string{extraBackup: in.ID}
	return j.save(false)
}

// notEmpty says what to do about a restore refused for a table that holds
// entities.
func notEmpty(err error) error {
	if errors.Is(err, backup.ErrNotEmpty) {
		return fmt.Errorf("%w; nothing was written: give --mode replace or --mode add-missing", err)
	}
	return err
}

func backupsJob() *jobCommand {
	var keep int
	var destSAS string
	return &jobCommand{name: "backups", args: 1, offline: true,
		flags: func(fs *flag.FlagSet, _ *jobInput) {
			fs.IntVar(&keep, "keep", 0, "keep the newest N backups: fold the oldest kept into a full one if needed, remove the older; 0 keeps all")
			fs.StringVar(&destSAS, "dest-sas", "", "SAS token for a blob container DEST")
		},
		check: func(*jobInput) error {
			if keep < 0 {
				return usagef("--keep %d: want 1 or more (0 keeps all)", keep)
			}
			return nil
		},
		act: func(ctx context.Context, in *jobInput) error { return listBackups(ctx, in, keep, destSAS) },
	}
}

// listBackups is backups' run: no table is read, so no account is opened.
func listBackups(ctx context.Context, in *jobInput, keep int, destSAS string) error {
	e := in.e
	st, err := openDest(in.pos[0], destSAS, in.from.parsedConnString(e))
	if err == nil {
		st, err = hookStore(e, st)
	}
	if err != nil {
		return err
	}
	if keep > 0 {
		k, err := backup.Keep(ctx, st, keep)
		if err != nil {
			return backupUsage(err)
		}
		if k.Folded != nil {
			fmt.Fprintf(e.stderr, "tablekit backups: folded %s into the full backup %s\n", k.Folded.FoldOf, k.Folded.ID)
		}
		fmt.Fprintf(e.stderr, "tablekit backups: removed %d backups\n", len(k.Removed))
	}
	infos, err := backup.List(ctx, st)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tFINISHED\tKIND\tWRITTEN\tDELETED\tENTITIES\tBYTES")
	for _, in := range infos {
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%d\t%d\n", in.ID, in.Finished.Format(time.RFC3339), kind(in), in.Written, in.Deleted, in.Entities, in.Bytes)
	}
	return w.Flush()
}
