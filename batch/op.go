package batch

import (
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/codec"
	"github.com/tablekit/tablekit/internal/link"
	"github.com/tablekit/tablekit/internal/txwire"
	"github.com/tablekit/tablekit/table"
)

// OpKind says what an operation does.
type OpKind uint8

const (
	// Upsert inserts the entity or merges into / replaces an existing one.
	// It is the zero OpKind because it is the safe default for loads: it needs
	// no ETag and a retried upsert cannot fail because its first attempt
	// committed.
	Upsert OpKind = iota
	// Add inserts the entity; the transaction fails with
	// table.ErrAlreadyExists if it exists.
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
	action aztables.TransactionAction // for aztables to encode; no Entity when part is set
	part   []byte                     // the operation's part of the body, on the fast path
	size   int                        // bytes the operation adds to the request body
}

// encoder turns operations into parts of the body (fast path) or aztables
// actions for one table and measures them as they will be sent.
type encoder[T any] struct {
	t     *table.Table[T]
	sizer *txwire.Sizer
	fast  bool
}

func newEncoder[T any](t *table.Table[T]) *encoder[T] {
	ep, fast := link.Fast(t)
	if ep == "" {
		ep = txwire.FallbackEndpoint() // table.Wrap: an upper bound; see txwire
	}
	return &encoder[T]{t: t, sizer: txwire.NewSizer(ep, t.Name()), fast: fast}
}

// keys returns the keys an operation addresses, without validating them.
func (e *encoder[T]) keys(op *Op[T]) (pk, rk string) {
	if op.Kind == Delete && (op.PartitionKey != "" || op.RowKey != "") {
		return op.PartitionKey, op.RowKey
	}
	return codec.Keys(&op.Entity)
}

// encode validates op and builds its action. Errors match a sentinel of
// package table (ErrInvalidEntity, ErrInvalidKey, ErrETagRequired,
// ErrInvalidOptions); the caller adds the index.
func (e *encoder[T]) encode(op *Op[T]) (encoded, error) {
	var typ aztables.TransactionType
	switch op.Kind {
	case Upsert, Update:
		merge := false
		switch op.Mode {
		case 0, table.Replace:
		case table.Merge:
			merge = true
		default:
			return encoded{}, fmt.Errorf("%w: mode must be table.Merge or table.Replace", table.ErrInvalidOptions)
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
			return encoded{}, fmt.Errorf("%w: Add takes no mode", table.ErrInvalidOptions)
		}
	case Delete:
		typ = aztables.TransactionTypeDelete
		if op.Mode != 0 {
			return encoded{}, fmt.Errorf("%w: Delete takes no mode", table.ErrInvalidOptions)
		}
	default:
		return encoded{}, fmt.Errorf("%w: unknown operation kind %d", table.ErrInvalidOptions, op.Kind)
	}
	switch op.Kind {
	case Update, Delete:
		if op.ETag == "" {
			return encoded{}, table.ErrETagRequired
		}
	default:
		if op.ETag != "" {
			return encoded{}, fmt.Errorf("%w: %s takes no ETag (Update and Delete do)", table.ErrInvalidOptions, op.Kind)
		}
	}
	if op.Kind != Delete && (op.PartitionKey != "" || op.RowKey != "") {
		return encoded{}, fmt.Errorf("%w: %s takes its keys from Entity; Op.PartitionKey and Op.RowKey are for Delete", table.ErrInvalidOptions, op.Kind)
	}

	enc := encoded{action: aztables.TransactionAction{ActionType: typ}}
	bodyLen := 0
	if op.Kind == Delete {
		enc.pk, enc.rk = e.keys(op)
		if err := codec.CheckKey("PartitionKey", enc.pk); err != nil {
			return encoded{}, err
		}
		if err := codec.CheckKey("RowKey", enc.rk); err != nil {
			return encoded{}, err
		}
		enc.action.Entity = txwire.KeysJSON(enc.pk, enc.rk)
	} else {
		body, err := e.t.Marshal(op.Entity)
		if err != nil {
			return encoded{}, err
		}
		// aztables re-encodes the entity with encoding/json: measure that.
		if bodyLen, err = e.entityLen(body); err != nil {
			return encoded{}, fmt.Errorf("%w: %w", table.ErrInvalidEntity, err)
		}
		enc.pk, enc.rk = codec.Keys(&op.Entity)
		enc.action.Entity = body
	}
	var ifMatch *string
	if op.ETag != "" {
		etag := op.ETag
		enc.action.IfMatch = &etag
		s := string(etag)
		ifMatch = &s
	}
	n, err := e.size(&enc, txwire.Op{Type: typ, PartitionKey: enc.pk, RowKey: enc.rk, IfMatch: ifMatch, EntityLen: bodyLen})
	if err != nil {
		return encoded{}, fmt.Errorf("%w: %w", table.ErrInvalidKey, err)
	}
	enc.size = n
	return enc, nil
}
