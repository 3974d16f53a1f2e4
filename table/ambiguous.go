package table

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/opdesc"
)

// Verify resolves tablekit.ErrMaybeCommitted after Add, Update or Upsert of
// e: same reports whether the stored entity holds what the write sent, and
// stored is its Meta. When same is false, another write won: read again.
func (t *Table[T]) Verify(ctx context.Context, e T, mode Mode) (same bool, stored Meta, err error) {
	if err := t.ready(); err != nil {
		return false, Meta{}, err
	}
	if _, err := mode.merge(); err != nil {
		return false, Meta{}, err
	}
	want, err := t.Marshal(e)
	if err != nil {
		return false, Meta{}, err
	}
	pk, rk := t.keys(&e)
	got, stored, err := t.storedBody(ctx, pk, rk)
	if err != nil {
		return false, Meta{}, err
	}
	if mode == Replace {
		return bytes.Equal(got, want), stored, nil
	}
	same, err = carries(got, want)
	return same, stored, err
}

// storedBody reads an entity and encodes it again as T, so that it compares
// byte for byte with what Marshal sent.
func (t *Table[T]) storedBody(ctx context.Context, pk, rk string) ([]byte, Meta, error) {
	d := t.handle().Describe(opdesc.Get)
	d.PartitionKey, d.RowKey = pk, rk
	data, etag, err := t.handle().Get(ctx, d)
	if err != nil {
		return nil, Meta{}, errmap.Map("verify", err)
	}
	e, err := t.Unmarshal(data)
	if err != nil {
		return nil, Meta{}, err
	}
	body, err := t.Marshal(e)
	return body, metaOf(etag), err
}

// carries reports whether the entity JSON got has every property of want,
// type annotations included, with the same value. Both come from the same
// encoder, so equal values are equal bytes.
func carries(got, want []byte) (bool, error) {
	var g, w map[string]json.RawMessage
	if err := json.Unmarshal(got, &g); err != nil {
		return false, err
	}
	if err := json.Unmarshal(want, &w); err != nil {
		return false, err
	}
	for k, v := range w {
		if gv, ok := g[k]; !ok || !bytes.Equal(gv, v) {
			return false, nil
		}
	}
	return true, nil
}

// deletedOnRetry reports a delete whose retry, after an attempt that may
// have reached the service, found the entity gone: whichever attempt or
// writer removed it, the delete's goal holds, so Delete reports success.
func deletedOnRetry(err error) bool {
	var mc *tablekit.MaybeCommittedError
	var re *azcore.ResponseError
	return errors.As(err, &mc) && errors.As(err, &re) && re.StatusCode == http.StatusNotFound
}
