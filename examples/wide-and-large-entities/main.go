// Wide and large entities: store a logical record that breaks an entity limit.
//
// Problem: an entity holds at most 252 properties of your own and 1 MiB in
// all, and a binary property at most 64 KiB. A year of daily counters (365
// properties) or a 2.5 MiB document does not fit.
//
// Wide entities: split the properties over several physical entities in the
// same partition (RowKeys "2025_1", "2025_2") and write them together in one
// entity group transaction, so a reader never sees half an update. Reading
// is one point read per part.
//
// Large entities: split the value into chunk rows, each within the limits
// (11 binary properties of 64 KiB = 704 KiB per row), and write a manifest
// row (size, chunk count, SHA-256) last. The manifest is the commit point:
// until it exists, readers treat the value as absent, so a writer that dies
// halfway leaves orphan chunks, never a corrupt value. (The design guide's
// other answer is a blob with its address in the entity.)
//
// Guarantees checked: the 365 counters are refused as one entity before
// anything is sent, written atomically across two entities of at most 252
// properties each and read back exactly; the large
// value is refused as one entity before anything is sent, is invisible
// before its manifest is written, and reads back byte for byte afterwards.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("wide-and-large-entities: ")
	if err := run(); err != nil {
		log.Fatalf("FAIL: %v", err)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	svc, err := table.NewService(connectionString(), nil)
	if err != nil {
		return err
	}
	name := uniqueName("wide")
	if err := svc.CreateTable(ctx, name); err != nil {
		return err
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), name)
	fmt.Println("table", name)
	if err := wide(ctx, svc, name); err != nil {
		return fmt.Errorf("wide entity: %w", err)
	}
	if err := large(ctx, svc, name); err != nil {
		return fmt.Errorf("large entity: %w", err)
	}
	fmt.Println("OK: both records stored within the limits and read back exactly")
	return nil
}

// ---- Wide entities ----

const maxProperties = 252 // per entity, keys and Timestamp not counted

// wide stores 365 daily counters as two physical entities. The property
// names are data (D001..D365), so this part uses table.Entity, whose
// properties are a map, rather than a Go struct.
func wide(ctx context.Context, svc *table.Service, name string) error {
	const pk, year = "emp000123", "2025"
	days, err := table.New[table.Entity](svc, name)
	if err != nil {
		return err
	}
	want := make([]int32, 365)
	all := table.NewEntity(pk, year)
	for d := range want {
		want[d] = int32(d * 7 % 50)
		all.Properties[fmt.Sprintf("D%03d", d+1)] = want[d]
	}
	// As one entity the record breaks the limit: refused before sending.
	if _, err := days.Upsert(ctx, all, table.Replace); !errors.Is(err, tablekit.ErrInvalid) {
		return fmt.Errorf("365 properties in one entity: got %v, want tablekit.ErrInvalid", err)
	}

	// Split into parts of at most 252 properties: 183 + 182.
	tx := batch.New(days)
	var sizes []int
	for part, start := 1, 0; start < len(want); part, start = part+1, start+183 {
		e := table.NewEntity(pk, fmt.Sprintf("%s_%d", year, part))
		for d := start; d < min(start+183, len(want)); d++ {
			e.Properties[fmt.Sprintf("D%03d", d+1)] = want[d]
		}
		if len(e.Properties) > maxProperties {
			return fmt.Errorf("part %d has %d properties", part, len(e.Properties))
		}
		tx.Upsert(e, table.Replace)
		sizes = append(sizes, len(e.Properties))
	}
	// One entity group transaction: both parts are written, or neither.
	// (Same PartitionKey, at most 100 operations, under 4 MiB.)
	if _, err := tx.Submit(ctx); err != nil {
		return err
	}
	fmt.Printf("wide: 365 daily counters of %s/%s written in one transaction as %d entities of %v properties\n",
		pk, year, tx.Len(), sizes)

	// Read: one point read per part, then reassemble.
	got := make([]int32, 0, 365)
	for part := 1; part <= tx.Len(); part++ {
		e, err := days.Get(ctx, pk, fmt.Sprintf("%s_%d", year, part), nil)
		if err != nil {
			return err
		}
		for d := len(got) + 1; ; d++ {
			v, ok := e.Properties[fmt.Sprintf("D%03d", d)].(int32)
			if !ok {
				break
			}
			got = append(got, v)
		}
	}
	fmt.Printf("wide: %d point reads gave back %d counters\n", tx.Len(), len(got))
	if len(got) != len(want) {
		return fmt.Errorf("read %d counters, want %d", len(got), len(want))
	}
	for d := range want {
		if got[d] != want[d] {
			return fmt.Errorf("D%03d = %d, want %d", d+1, got[d], want[d])
		}
	}
	return nil
}

// ---- Large entities ----

// Chunk is one row of a large value: up to 11 binary properties of 64 KiB
// (the service's limit per binary property). The service counts an entity's
// size on the raw bytes, and would accept 15 such properties under its 1 MiB
// limit; the Azurite emulator counts the JSON request, where binary is base64
// (4/3 larger). 11 properties keep a row under 1 MiB of JSON, valid on both.
type Chunk struct {
	PartitionKey string // the value's id
	RowKey       string // "chunk_" + zero-padded index
	P00, P01, P02, P03, P04, P05,
	P06, P07, P08, P09, P10 []byte `table:",omitempty"`
}

func (c *Chunk) parts() []*[]byte {
	return []*[]byte{&c.P00, &c.P01, &c.P02, &c.P03, &c.P04, &c.P05,
		&c.P06, &c.P07, &c.P08, &c.P09, &c.P10}
}

const (
	maxBinary     = 64 * 1024 // bytes per binary property
	chunkCapacity = 11 * maxBinary
)

// Manifest describes a stored value; written last, it makes the value visible.
type Manifest struct {
	PartitionKey string // the value's id
	RowKey       string // "manifest"
	Size         int64
	Chunks       int32
	SHA256       string
}

// Blob is what a naive design would store: the whole value in one property.
type Blob struct {
	PartitionKey string
	RowKey       string
	Data         []byte
}

func large(ctx context.Context, svc *table.Service, name string) error {
	chunks, err := table.New[Chunk](svc, name)
	if err != nil {
		return err
	}
	manifests, err := table.New[Manifest](svc, name)
	if err != nil {
		return err
	}
	value := make([]byte, 2_500_000) // about 2.4 MiB
	rand.Read(value)
	const id = "report-2025-03"

	// One entity cannot hold it: tablekit refuses before sending anything.
	blobs, _ := table.New[Blob](svc, name)
	_, err = blobs.Add(ctx, Blob{PartitionKey: id, RowKey: "whole", Data: value})
	fmt.Printf("large: %d bytes as one entity: %v\n", len(value), err)
	if !errors.Is(err, tablekit.ErrInvalid) {
		return fmt.Errorf("storing %d bytes in one property: got %v, want tablekit.ErrInvalid", len(value), err)
	}

	// Write the chunks. Upsert: an upload retried after a crash just
	// overwrites them.
	n := 0
	for off := 0; off < len(value); off += chunkCapacity {
		c := Chunk{PartitionKey: id, RowKey: "chunk_" + table.PadUint(uint64(n), 4)}
		rest := value[off:min(off+chunkCapacity, len(value))]
		for _, p := range c.parts() {
			if len(rest) == 0 {
				break
			}
			*p, rest = rest[:min(maxBinary, len(rest))], rest[min(maxBinary, len(rest)):]
		}
		if _, err := chunks.Upsert(ctx, c, table.Replace); err != nil {
			return err
		}
		n++
	}
	fmt.Printf("large: wrote %d chunk rows of up to %d bytes\n", n, chunkCapacity)

	// A reader now still sees nothing: no manifest, no value.
	if _, err := read(ctx, chunks, manifests, id); !errors.Is(err, tablekit.ErrNotFound) {
		return fmt.Errorf("read before the manifest: got %v, want tablekit.ErrNotFound", err)
	}
	fmt.Println("large: before the manifest, readers find no value (not a partial one)")

	sum := sha256.Sum256(value)
	m := Manifest{PartitionKey: id, RowKey: "manifest", Size: int64(len(value)), Chunks: int32(n), SHA256: hex.EncodeToString(sum[:])}
	if _, err := manifests.Upsert(ctx, m, table.Replace); err != nil {
		return err
	}
	got, err := read(ctx, chunks, manifests, id)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, value) {
		return fmt.Errorf("read back %d bytes that differ from the %d written", len(got), len(value))
	}
	fmt.Printf("large: manifest written; read back %d bytes, SHA-256 %s...\n", len(got), m.SHA256[:16])
	return nil
}

// read returns the value id, or an error matching tablekit.ErrNotFound if its
// manifest does not exist yet. It checks size and checksum.
func read(ctx context.Context, chunks *table.Table[Chunk], manifests *table.Table[Manifest], id string) ([]byte, error) {
	m, err := manifests.Get(ctx, id, "manifest", nil)
	if err != nil {
		return nil, err
	}
	// All chunks in one partition range query, in RowKey order.
	rows, err := query.Collect(query.New(chunks).
		Where(query.And(query.Partition(id), query.RowKey.HasPrefix("chunk_"))).
		All(ctx))
	if err != nil {
		return nil, err
	}
	if len(rows) != int(m.Chunks) {
		return nil, fmt.Errorf("%s: %d chunk rows, manifest says %d", id, len(rows), m.Chunks)
	}
	value := make([]byte, 0, m.Size)
	for _, c := range rows {
		for _, p := range c.parts() {
			value = append(value, *p...)
		}
	}
	sum := sha256.Sum256(value)
	if int64(len(value)) != m.Size || hex.EncodeToString(sum[:]) != m.SHA256 {
		return nil, fmt.Errorf("%s: %d bytes with another checksum than the manifest's", id, len(value))
	}
	return value, nil
}

// connectionString returns TABLEKIT_CONNECTION_STRING, or the local Azurite
// development account when it is not set.
func connectionString() string {
	if cs := os.Getenv("TABLEKIT_CONNECTION_STRING"); cs != "" {
		return cs
	}
	return "UseDevelopmentStorage=true"
}

// uniqueName returns prefix plus random hex: a fresh table per run, because a
// deleted table's name cannot be reused for 40 seconds or more.
func uniqueName(prefix string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
