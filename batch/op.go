package batch

import (
	"fmt"
	"reflect"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/table"
)

// OpKind says what an operation does.
type OpKind uint8

const (
	// Upsert inserts the entity or merges into / replaces an existing one. It
	// is the zero OpKind, the safe default for loads: it needs no ETag and a
	// retry cannot fail because its first attempt committed.
	Upsert OpKind = iota
	// Add inserts the entity; the transaction fails with
	// tablekit.ErrAlreadyExists if it exists.
	Add
	// Update changes an existing entity if its ETag matches (or
	// unconditionally with table.AnyETag).
	Update
	// Delete removes an entity if its ETag matches (or unconditionally with
	// table.AnyETag).
	Delete
)

// String returns the OpKind's name, e.g. "Upsert".
func (k OpKind) String() string {
	switch k {
	case Upsert:
		return "Upsert"
	case Add:
		return "Add"
	case Update:
		return "Update"
	case Delete:
		return "Delete"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Op is one write in a Transaction or a bulk Write. The zero OpKind and Mode
// make Op{Entity: e} an upsert that replaces: idempotent, and the stored
// entity is exactly e afterwards.
type Op[T any] struct {
	// Kind is what to do; the zero value is Upsert.
	Kind OpKind
	// Entity is what Add, Upsert and Update write; its PartitionKey and
	// RowKey say where. Delete uses only its keys, and only when
	// PartitionKey and RowKey below are empty.
	Entity T
	// PartitionKey and RowKey name the entity a Delete removes (so that a
	// delete needs no entity value). Other kinds take their keys from Entity
	// and must leave these empty.
	PartitionKey, RowKey string
	// Mode is table.Merge or table.Replace for Upsert and Update; the zero
	// value means table.Replace. Add and Delete must leave it zero.
	Mode table.Mode
	// ETag is required by Update and Delete: the ETag you read, for
	// optimistic concurrency, or table.AnyETag for an unconditional write.
	// Add and Upsert must leave it empty.
	ETag azcore.ETag
}

// encoded is an operation ready for the wire, with its wire size.
type encoded struct {
	pk, rk string
	part   core.TxPart
	size   int // bytes the operation adds to the request body
}

// encoder turns operations into parts of a transaction on one table and
// measures them as they will be sent. It is used by one goroutine at a
// time: an entity is encoded into its scratch buffer, which the part
// copies into the arena (so operations share their allocations), from cur,
// where reflection reads it in place (a pointer to a parameter would move
// every operation to the heap).
type encoder[T any] struct {
	t       *table.Table[T]
	scratch []byte
	arena   *core.TxArena
	cur     Op[T]
}

// The arena blocks of a transaction, whose parts live and die together,
// grow with it; a bulk write's are small, since a part that waits for its
// chunk keeps its whole block in memory, beyond what MaxBuffered counts,
// and are reused once their chunks are done.
const (
	txFirstBlock, txMaxBlock = 32 << 10, 512 << 10
	writeBlock               = 16 << 10
)

func newEncoder[T any](t *table.Table[T], arena *core.TxArena) *encoder[T] {
	return &encoder[T]{t: t, arena: arena}
}

// limits starts the limits of an empty transaction on the table's backend.
func (e *encoder[T]) limits() txLimits { return newTxLimits((*core.Table)(e.t).Profile()) }

// opKeys are the keys an operation addresses.
type opKeys struct{ pk, rk string }

// keys returns the keys an operation addresses, without validating them:
// Delete's own, else its entity's, read with the table's plan.
func (e *encoder[T]) keys(op *Op[T]) opKeys {
	if op.Kind == Delete && (op.PartitionKey != "" || op.RowKey != "") {
		return opKeys{op.PartitionKey, op.RowKey}
	}
	pk, rk := (*core.Table)(e.t).Plan().Keys(reflect.ValueOf(&op.Entity).Elem())
	return opKeys{pk, rk}
}

// encode validates op and builds its action. k, when not nil, are the
// operation's keys as the caller read them already (Write groups by them),
// so that they are read once. Errors are *tablekit.ValidationError; the
// caller adds the index. The encoded operation's keys are set with an
// error too.
func (e *encoder[T]) encode(op Op[T], k *opKeys) (encoded, error) {
	e.cur = op
	defer func() { e.cur = Op[T]{} }() // keeps no entity of the caller's
	if k == nil {
		kk := e.keys(&e.cur)
		k = &kk
	}
	enc, err := e.encodeKeyed(&e.cur, *k)
	enc.pk, enc.rk = k.pk, k.rk
	return enc, err
}

func (e *encoder[T]) encodeKeyed(op *Op[T], k opKeys) (encoded, error) {
	var typ aztables.TransactionType
	switch op.Kind {
	case Upsert, Update:
		merge := false
		switch op.Mode {
		case 0, table.Replace:
		case table.Merge:
			merge = true
		default:
			return encoded{}, errmap.Invalid("", "Mode", "must be table.Merge or table.Replace")
		}
		switch {
		case op.Kind == Upsert && merge:
			typ = aztables.TransactionTypeInsertMerge
		case op.Kind == Upsert:
			typ = aztables.TransactionTypeInsertReplace
		case merge:
			typ = aztables.TransactionTypeUpdateMerge
		default:
			typ = aztables.TransactionTypeUpdateReplace
		}
	case Add:
		typ = aztables.TransactionTypeAdd
		if op.Mode != 0 {
			return encoded{}, errmap.Invalid("", "Mode", "Add takes no mode")
		}
	case Delete:
		typ = aztables.TransactionTypeDelete
		if op.Mode != 0 {
			return encoded{}, errmap.Invalid("", "Mode", "Delete takes no mode")
		}
	default:
		return encoded{}, errmap.Invalidf("", "Kind", "unknown operation kind %d", op.Kind)
	}
	switch op.Kind {
	case Update, Delete:
		if op.ETag == "" {
			return encoded{}, errmap.Invalid("", "ETag", "required (pass the entity's ETag, or table.AnyETag for an unconditional write)")
		}
	default:
		if op.ETag != "" {
			return encoded{}, errmap.Invalidf("", "ETag", "%s takes no ETag (Update and Delete do)", op.Kind)
		}
	}
	if op.Kind != Delete && (op.PartitionKey != "" || op.RowKey != "") {
		return encoded{}, errmap.Invalidf("", "PartitionKey", "%s takes its keys from Entity; Op.PartitionKey and Op.RowKey are for Delete", op.Kind)
	}

	txop := core.TxOp{Type: typ, PartitionKey: k.pk, RowKey: k.rk, Arena: e.arena}
	if op.Kind == Delete {
		prof := (*core.Table)(e.t).Profile()
		if err := codec.CheckKey(prof, "PartitionKey", txop.PartitionKey); err != nil {
			return encoded{}, err
		}
		if err := codec.CheckKey(prof, "RowKey", txop.RowKey); err != nil {
			return encoded{}, err
		}
	} else {
		// What Table.Marshal writes, into the reused buffer, from the
		// operation's own entity (no copy of it).
		h := (*core.Table)(e.t)
		body, err := h.Plan().Encode(e.scratch[:0], reflect.ValueOf(&op.Entity).Elem(), h.Profile())
		if err != nil {
			return encoded{}, err
		}
		e.scratch = body[:0]
		txop.Entity = body
	}
	if op.ETag != "" {
		etag := op.ETag
		txop.IfMatch = &etag
	}
	part, err := (*core.Table)(e.t).EncodeOp(txop)
	if err != nil {
		return encoded{}, err
	}
	return encoded{pk: txop.PartitionKey, rk: txop.RowKey, part: part, size: part.Size()}, nil
}
