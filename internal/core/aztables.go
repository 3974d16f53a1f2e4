package core

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/internal/txwire"
)

// aztablesPath sends a table's data requests through the public methods of
// an aztables client tablekit did not build (table.Wrap). aztables decodes
// each entity into a map and encodes it again, both ways: the bytes on the
// wire are its encoding of tablekit's (properties sorted, a whole Double
// written as 1), and what is read is its re-encoding of the service's
// reply (a whole Double without annotation reads back as an Int32). It is
// the slower path, for code that cannot let tablekit build its client.
type aztablesPath struct {
	c *aztables.Client
	// sizer measures operations on an endpoint longer than any real one:
	// the client's endpoint is not exported, so sizes are upper bounds.
	sizer *txwire.Sizer
}

func newAztablesPath(c *aztables.Client) *aztablesPath {
	return &aztablesPath{c: c, sizer: txwire.NewSizer(txwire.FallbackEndpoint(), "t", true)}
}

// The aztables path cannot carry d with aztables' requests: a retry
// policy of table.ClientOptions describes them from their shape
// (opdesc.Infer).

func (a *aztablesPath) get(ctx context.Context, d opdesc.Desc) ([]byte, azcore.ETag, error) {
	resp, err := a.c.GetEntity(ctx, d.PartitionKey, d.RowKey, nil)
	return resp.Value, resp.ETag, err
}

func (a *aztablesPath) insert(ctx context.Context, _ opdesc.Desc, entity []byte, _ *[]byte) (azcore.ETag, error) {
	resp, err := a.c.AddEntity(ctx, entity, nil)
	return resp.ETag, err
}

func (a *aztablesPath) write(ctx context.Context, d opdesc.Desc, w Write) (azcore.ETag, error) {
	mode := aztables.UpdateModeReplace
	if d.Merge {
		mode = aztables.UpdateModeMerge
	}
	if w.IfMatch == nil {
		resp, err := a.c.UpsertEntity(ctx, w.Entity, &aztables.UpsertEntityOptions{UpdateMode: mode})
		return resp.ETag, err
	}
	resp, err := a.c.UpdateEntity(ctx, w.Entity, &aztables.UpdateEntityOptions{UpdateMode: mode, IfMatch: w.IfMatch})
	return resp.ETag, err
}

func (a *aztablesPath) delete(ctx context.Context, d opdesc.Desc, ifMatch azcore.ETag) error {
	_, err := a.c.DeleteEntity(ctx, d.PartitionKey, d.RowKey, &aztables.DeleteEntityOptions{IfMatch: &ifMatch})
	return err
}

// page fetches the page with aztables' pager and puts its entities (which
// aztables re-encoded) back into the page form the decoder reads.
func (a *aztablesPath) page(ctx context.Context, _ opdesc.Desc, q PageQuery) (Page, error) {
	o := &aztables.ListEntitiesOptions{Filter: q.Filter, Select: q.Select, NextPartitionKey: q.NextPartitionKey, NextRowKey: q.NextRowKey}
	if q.Top > 0 {
		top := q.Top
		o.Top = &top
	}
	resp, err := a.c.NewListEntitiesPager(o).NextPage(ctx)
	if err != nil {
		return Page{}, err
	}
	n := len(`{"value":[]}`)
	for _, e := range resp.Entities {
		n += len(e) + 1
	}
	body := make([]byte, 0, n)
	body = append(body, `{"value":[`...)
	for i, e := range resp.Entities {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, e...)
	}
	body = append(body, "]}"...)
	return Page{Body: body, NextPartitionKey: nonEmpty(resp.NextPartitionKey), NextRowKey: nonEmpty(resp.NextRowKey)}, nil
}

func nonEmpty(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}

// encode keeps the action for SubmitTransaction and measures what aztables
// will send for it: the entity as encoding/json re-encodes it.
func (a *aztablesPath) encode(op TxOp) (TxPart, error) {
	// A copy: the caller may reuse op.Entity's bytes (EncodeOp).
	action := aztables.TransactionAction{ActionType: op.Type, Entity: bytes.Clone(op.Entity), IfMatch: op.IfMatch}
	n := 0
	if op.Type == aztables.TransactionTypeDelete {
		action.Entity = txwire.KeysJSON(op.PartitionKey, op.RowKey)
	} else {
		var err error
		if n, err = txwire.CanonicalLen(op.Entity); err != nil {
			return TxPart{}, &tablekit.ValidationError{Field: "(entity)", Index: -1, Rule: "not a JSON object", Err: err}
		}
	}
	var ifMatch *string
	if op.IfMatch != nil {
		s := string(*op.IfMatch)
		ifMatch = &s
	}
	size, err := a.sizer.OpSize(txwire.Op{Type: op.Type, PartitionKey: op.PartitionKey, RowKey: op.RowKey, IfMatch: ifMatch, EntityLen: n})
	if err != nil {
		return TxPart{}, &tablekit.ValidationError{Field: "keys", Index: -1, Rule: "make no request URL", Err: err}
	}
	return TxPart{action: &action, size: size}, nil
}

// submit calls SubmitTransaction and returns the reply it captured, for
// the caller to read: aztables only reports that something failed.
// d.SendOnce cannot reach the client's pipeline; a retry policy of
// table.ClientOptions sees retry.Do's mark instead. aztables v1.4.1
// slices the reply without bounds checks while looking for its boundary
// (an empty 202 body panics); a panic there becomes an error, and the
// captured reply is still returned.
func (a *aztablesPath) submit(ctx context.Context, _ opdesc.Desc, parts []TxPart) (resp *http.Response, err error) {
	actions := make([]aztables.TransactionAction, len(parts))
	for i := range parts {
		actions[i] = *parts[i].action
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("aztables failed reading the reply: %v", r)
		}
	}()
	_, err = a.c.SubmitTransaction(policy.WithCaptureResponse(ctx, &resp), actions, nil)
	return resp, err
}
