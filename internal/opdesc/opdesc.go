// Package opdesc describes an operation where its call starts (Table.Add,
// Transaction.Submit, a bulk-write chunk, a query page, ...) and carries
// the description with the request as an azcore operation value
// (policy.Request.SetOperationValue). The retry policy, the no-echo
// policy, error mapping and the ambiguity check read it from there, so no
// layer below the call parses a method or a URL to learn what the call
// knew. Requests that tablekit did not build (users' aztables clients with
// table.ClientOptions, aztables' management calls) carry none and are
// described from their shape by Infer, the one parser left.
package opdesc

import (
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Kind is what an operation does.
type Kind uint8

const (
	// Other is a request of unknown kind: a foreign request Infer does not
	// recognise (a table's ACL, service properties, ...).
	Other Kind = iota
	Insert
	// Update replaces or merges into an existing entity (with If-Match).
	Update
	// Upsert inserts, or replaces or merges into an existing entity
	// (without If-Match).
	Upsert
	Delete
	Get
	QueryPage
	Transaction
	TableCreate
)

// Desc describes one operation. The zero Desc is an Other read.
type Desc struct {
	Kind Kind
	// Table is the table's name, "" when unknown.
	Table string
	// PartitionKey and RowKey address the entity of a point operation; a
	// transaction's partition.
	PartitionKey, RowKey string
	// Entities is how many entities the operation writes (1 for a point
	// write, a transaction's operation count).
	Entities int
	// Merge says an Update or Upsert merges into a stored entity rather
	// than replacing it.
	Merge bool
	// Conditional says an update or delete has an If-Match other
	// than "*": its retry can fail on the ETag its own first attempt
	// changed.
	Conditional bool
	// SendOnce asks the retry policy for a single attempt: the caller
	// retries the operation itself (package batch's bulk writer).
	SendOnce bool
	// RetryOff says the request's context already switches azcore's own
	// retry policy off (policy.WithRetryOptions with MaxRetries -1), as
	// the retry policy does for each attempt: its first attempt is then
	// the request as it is, with no copy of it on another context.
	RetryOff bool
	// Body holds the bytes of the request's body, so that every attempt of
	// the retry policy sends them through a reader of its own: a reply can
	// arrive before the transport has sent the whole body, and net/http may
	// still read the previous attempt's reader when the next one starts.
	Body []byte
	// Attempts, when not nil, counts the attempts the retry policy sends.
	// A caller that takes Body's buffer back for another request (core's
	// transactions) does so only after a single attempt: an earlier
	// attempt's reader may still be read.
	Attempts *atomic.Int32
	// Read, when set, is the caller's reading of a successful reply's
	// body, run by the retry policy on each attempt that gets one (core's
	// query pages: the page is decoded there; its transactions, whose
	// reply batch parses, accept any). Such a request skips
	// azcore's body download (package payload reads the body, into a
	// buffer of its Content-Length or SizeHint), and Read takes the place
	// of the policy's check that the body is whole JSON, since decoding
	// parses every byte anyway: when Read fails on a body that is not
	// whole JSON, the reply was broken in transit and is retried as such;
	// any other failure is Read's to report to its caller.
	Read func(body []byte) error
	// SizeHint is the size a body without a Content-Length (a chunked
	// reply) is read into first: for a query, its previous page's.
	SizeHint int
	// Write says a request Infer described changes something (any method
	// but GET and HEAD); for the kinds tablekit builds, the kind says.
	write bool
	// method is the lowercase method of an Other request, its name.
	method string
}

// Set carries d with req as an azcore operation value, not in the
// request's context: a description is what the call knew, not a signal for
// code that happens to share the context. It is kept by pointer, so that a
// read copies no Desc to the heap.
func Set(req *policy.Request, d Desc) { req.SetOperationValue(&d) }

// Of is the description of req: the one its call carried, or Infer's.
func Of(req *policy.Request) Desc {
	var d *Desc
	if req.OperationValue(&d) && d != nil {
		return *d
	}
	return Infer(req.Raw())
}

// Name is the operation as tablekit's errors name it (Operation of
// tablekit.ServiceError and MaybeCommittedError).
func (d Desc) Name() string {
	switch d.Kind {
	case Insert:
		return "add"
	case Update:
		return "update"
	case Upsert:
		return "upsert"
	case Delete:
		return "delete"
	case Get:
		return "get"
	case QueryPage:
		return "query"
	case Transaction:
		return "transaction"
	case TableCreate:
		return "create table"
	}
	return d.method
}

// IsWrite reports an operation that changes something: a reply lost after
// it may have reached the service leaves its outcome unknown.
func (d Desc) IsWrite() bool {
	switch d.Kind {
	case Insert, Update, Upsert, Delete, Transaction, TableCreate:
		return true
	case Get, QueryPage:
		return false
	}
	return d.write
}

// Idempotent reports an operation that a retry after its own commit
// leaves as it was and that succeeds again: reads, upserts and
// unconditional updates. An insert, a conditional write and a delete can
// collide with their own first attempt (OwnCollision).
func (d Desc) Idempotent() bool {
	switch d.Kind {
	case Get, QueryPage, Upsert:
		return true
	case Update:
		return !d.Conditional
	}
	return false
}

// Service error codes that OwnCollision looks at.
const (
	codeEntityAlreadyExists = "EntityAlreadyExists"
	codeTableNotFound       = "TableNotFound"
)

// OwnCollision reports whether the service's refusal (status and error
// code) of a retry is what the operation's own earlier commit would cause:
// an insert answered 409 EntityAlreadyExists, a conditional update 412, a delete 412 or 404, a transaction any of those for one of its
// operations. After an attempt that may have committed, such a refusal
// means the outcome is unknown (tablekit.MaybeCommittedError), not someone
// else's write. It is the one answer to "did my own earlier attempt
// commit?" for the retry loop and package batch alike.
func (d Desc) OwnCollision(status int, code string) bool {
	if d.Idempotent() {
		return false // its retry succeeds again after its own commit
	}
	switch d.Kind {
	case Insert:
		return status == http.StatusConflict && code == codeEntityAlreadyExists
	case Update:
		return status == http.StatusPreconditionFailed && d.Conditional
	case Delete:
		return status == http.StatusPreconditionFailed || status == http.StatusNotFound && code != codeTableNotFound
	case Transaction:
		switch status {
		case http.StatusConflict, http.StatusPreconditionFailed:
			return true
		case http.StatusNotFound:
			return code != codeTableNotFound
		}
	}
	return false
}

// lowerMethod is m in lower case, without allocating for the usual ones.
func lowerMethod(m string) string {
	switch m {
	case http.MethodGet:
		return "get"
	case http.MethodPost:
		return "post"
	case http.MethodPut:
		return "put"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return strings.ToLower(m)
}
