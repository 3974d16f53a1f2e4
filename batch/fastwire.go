package batch

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/fastpath"
	"github.com/tablekit/tablekit/internal/txwire"
	"github.com/tablekit/tablekit/table"
)

// On the fast path tablekit writes the $batch body itself: the entities go
// out as encoded, the 4 MiB rule is checked on the real bytes, and the
// reply is parsed once, by readReply. aztables' SubmitTransaction still
// sends it, through the table's pipeline (retry, signing, tracing), with a
// one-operation placeholder whose body the fast path's policy replaces.

// entityLen is the entity's length on the wire: as it is on the fast path,
// as aztables re-encodes it otherwise.
func (e *encoder[T]) entityLen(body []byte) (int, error) {
	if e.fast {
		return len(body), nil
	}
	return txwire.CanonicalLen(body)
}

// size returns the bytes op adds to the body; on the fast path it writes
// the operation's part, which replaces the entity in enc.
func (e *encoder[T]) size(enc *encoded, op txwire.Op) (int, error) {
	if !e.fast {
		return e.sizer.OpSize(op)
	}
	part, err := e.sizer.AppendPart(nil, op, enc.action.Entity)
	if err != nil {
		return 0, err
	}
	enc.part, enc.action.Entity = part, nil
	return txwire.DelimiterLen() + len(part), nil
}

// neverMatches is the If-Match of the placeholder: a Delete that no entity
// can satisfy, should it ever be sent.
var neverMatches = azcore.ETag(`W/"datetime'1601-01-01T00%3A00%3A00Z'"`)

// submitOps sends the operations and returns the reply as readReply reads
// it (with its body) and aztables' error.
func submitOps[T any](ctx context.Context, t *table.Table[T], wire []encoded) (*http.Response, error) {
	var resp *http.Response
	if len(wire) == 0 || wire[0].part == nil {
		actions := make([]aztables.TransactionAction, len(wire))
		for i := range wire {
			actions[i] = wire[i].action
		}
		err := submit(policy.WithCaptureResponse(ctx, &resp), t.Client(), actions)
		return resp, err
	}
	parts := make([][]byte, len(wire))
	for i := range wire {
		parts[i] = wire[i].part
	}
	body, ct := txwire.Body(parts)
	h := &fastpath.Holder{Kind: fastpath.Batch, Out: body, ContentType: ct}
	placeholder := []aztables.TransactionAction{{
		ActionType: aztables.TransactionTypeDelete,
		Entity:     txwire.KeysJSON(wire[0].pk, wire[0].rk),
		IfMatch:    &neverMatches,
	}}
	err := submit(policy.WithCaptureResponse(fastpath.With(ctx, h), &resp), t.Client(), placeholder)
	if h.Resp != nil {
		// The reply the policy kept, with its body, for readReply.
		kept := *h.Resp
		kept.Body = io.NopCloser(bytes.NewReader(h.In))
		kept.ContentLength = int64(len(h.In))
		return &kept, err
	}
	return resp, err
}
