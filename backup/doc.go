// Package backup takes full and incremental backups of a table into a
// directory or a blob container, restores a table as of any of them, and
// folds old ones away, so that a service can back itself up on a timer
// with a few lines and the tablekit command's backup, restore and backups
// are thin layers over it.
//
// # Taking backups
//
// [Run] backs up one table into a [Store]: [Dir] for a directory, package
// backup/blobstore for a blob container (kept apart so that this package
// does not pull azblob):
//
//	svc, _ := table.NewService(os.Getenv("TABLEKIT_CONNECTION_STRING"), nil)
//	in, err := backup.Run(ctx, svc, "orders", backup.Dir("/var/backups/orders"), nil)
//	fmt.Println(in.ID, in.Written, in.Deleted)
//
// The first backup in a store is full; each later one is incremental:
// the entities added or changed since the previous one, and the keys
// deleted since, so that no deleted entity comes back on restore. Every
// backup ends with a keys-only parallel scan of the table; the keys it
// does not find that the previous backup held are the deletes. On Table
// Storage an incremental backup reads the entities whose Timestamp is at
// or after the previous backup's start minus [Options].Overlap (the
// service sets Timestamp by its own clock, and a write becomes visible a
// little after it gets its Timestamp). On Cosmos DB, where Timestamp
// filters return nothing, it compares each key's ETag from the keys-only
// scan with the one the previous backup stored, and reads each changed
// entity with a point read ([ChangesByETag]): the scan reads every key of
// the table (each counts toward request units, though keys are small),
// and each changed entity costs one more request. An entity read again
// whose version a backup holds already (same ETag) is not stored again.
//
// # What is stored
//
// A backup is files under files/<ID>/ and a manifest, manifests/<ID>.json,
// written last: a backup without its manifest does not exist, so an
// interrupted Run (a cancelled context, a crash, kill -9) leaves nothing
// that can be restored half, and the next Run deletes its files and starts
// again. Data files are gzip-compressed JSON Lines, data-0000.jsonl.gz and
// on, one entity a line in the form `tablekit export` writes (the
// service's JSON, every EDM type annotated, Timestamp kept and annotated),
// so a file decompressed is what `tablekit import` reads. keys.jsonl.gz
// holds the key set as of the backup with each version's ETag, sorted,
// and deleted.jsonl.gz the keys deleted since the base. The manifest
// records each file's SHA-256, size and line count, and the counts
// [List] reports ([Info]).
//
// A backup is taken over a span of time, not at one instant: an entity
// written while a backup runs is in that backup or in the next one, never
// in neither; a restore then holds, for each entity, a version it had at
// some moment between the backup's Started and Finished. docs/backup.md
// says what that means for related entities.
//
// # Restoring
//
// [Restore] writes a table as of a backup ([RestoreOptions].ID, or the
// last finished by [RestoreOptions].Before, or the last), creating it if
// missing. It first reads every file it needs and checks each SHA-256: a
// damaged file is a [*CorruptError] naming it, and the table is not
// touched. Then it writes the latest version of each key in the chain
// (the full backup and the incremental ones up to the one asked for),
// once, in parallel transactions through batch.WriteSeq, with the exact
// EDM types stored. A table that holds entities is refused ([ErrNotEmpty])
// unless [RestoreOptions].Mode is [Replace] or [AddMissing].
// [RestoreOptions].TimestampProperty keeps each entity's original
// Timestamp in a property, since the service sets its own. A restore cut
// short (tablekit.ErrIncomplete from the writes, a cancelled context) is
// finished by running it again with [Replace], or, into a table it found
// empty, with [AddMissing] and the same backup ([Find] tells which that
// is before the first write). [Entities] reads the same
// state without writing it, for a comparison with a table (tablekit
// verify TABLE DEST) or a copy elsewhere.
//
// # Keeping N
//
// [Keep] keeps the newest n backups and removes the older ones; when the
// oldest kept is incremental, it is first folded into a full backup made
// from the stored files alone, without reading the table. Every file it
// reads is checked against its SHA-256, and the fold's manifest is written
// before anything is removed: an interrupted Keep leaves every backup
// restorable, and running it again finishes it. A service that
// backs itself up calls Run and then Keep on a ticker: the program in
// examples/backup-timer does, and checks what each backup restores.
//
// # Shares
//
// [Options].Share makes Run one of n machines that take one backup
// together, each over its PartitionKey range ([Share]). Each stores its
// files and a share manifest; the one that finds all n landed writes the
// backup's manifest with [Store].Create, which one writer alone can win,
// so the backup is listed and restorable once every share is, never
// twice. A share run again after a failure redoes its part; docs/backup.md's
// Shares section says more.
//
// # Limits
//
// One Run (the shares of one backup together), Restore or Keep at a time
// per store. Run and Restore hold every
// key of the table in memory (about 100 bytes a key plus the keys
// themselves); a data file is compressed in memory, beside the scan,
// before it is stored ([Options].FileBytes).
package backup
