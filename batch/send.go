package batch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/opdesc"
	"github.com/tablekit/tablekit/internal/payload"
	"github.com/tablekit/tablekit/internal/txwire"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// send submits prepared operations and reads the reply: every operation's
// result (when results is set), or the one that failed. once makes it a
// single attempt, for a caller that retries the transaction itself. The
// bulk writer keeps no results, and each one's Timestamp is read from its
// ETag with time.Parse.
func send[T any](ctx context.Context, t *table.Table[T], wire []encoded, once, results bool) ([]OpResult, error) {
	parts := make([]core.TxPart, len(wire))
	for i := range wire {
		parts[i] = wire[i].part
	}
	d := (*core.Table)(t).Describe(opdesc.Transaction)
	d.Entities, d.SendOnce = len(wire), once
	if len(wire) > 0 {
		d.PartitionKey = wire[0].pk
	}
	resp, err := (*core.Table)(t).Submit(ctx, d, parts)
	if resp != nil && resp.StatusCode == http.StatusAccepted {
		return readReply(resp, err, len(wire), results)
	}
	if err == nil {
		// A 204 (aztables takes it for success) is no answer to a
		// transaction.
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		return nil, &errmap.Broken{Method: http.MethodPost, StatusCode: status, Err: errors.New("no multipart reply")}
	}
	return nil, errmap.Map(d.Name(), err)
}

// readReply interprets a 202 reply: per-operation results, or the failure.
// aztErr is the error that came with it, if any (the aztables path reports
// one for a failed transaction); ops is the transaction's operation count;
// without results, a commit returns none.
func readReply(resp *http.Response, aztErr error, ops int, results bool) ([]OpResult, error) {
	body, err := replyBody(resp)
	if err != nil {
		return nil, brokenBody(resp, aztErr, err)
	}
	parts, err := txwire.Parse(resp.Header.Get("Content-Type"), body)
	if err != nil {
		return nil, &errmap.Broken{Method: http.MethodPost, StatusCode: resp.StatusCode, Err: err}
	}
	// The failed operation; Cosmos DB answers 424 Failed Dependency for the
	// operations that were not applied because of it.
	failed := -1
	for i, p := range parts {
		if p.StatusCode < 400 {
			continue
		}
		if failed < 0 || (parts[failed].StatusCode == http.StatusFailedDependency && p.StatusCode != http.StatusFailedDependency) {
			failed = i
		}
	}
	if failed < 0 {
		if len(parts) != ops {
			return nil, &errmap.Broken{Method: http.MethodPost, StatusCode: resp.StatusCode, Err: fmt.Errorf("%d responses for %d operations", len(parts), ops)}
		}
		var res []OpResult
		if results {
			res = make([]OpResult, len(parts))
			for i, p := range parts {
				etag := azcore.ETag(p.ETag)
				res[i] = OpResult{StatusCode: p.StatusCode, Meta: table.Meta{ETag: etag, Timestamp: wire.TimestampFromETag(etag)}}
			}
		}
		// Nothing refers to the body any more (the ETags are strings of
		// their own): its buffer goes to the next reply.
		if payload.Done(resp) {
			payload.Recycle(body)
		}
		return res, nil
	}
	return nil, opError(resp, parts, failed, ops)
}

// replyBody is the reply's body: read by package payload on the pipeline
// path, by azcore on the aztables path (whose reader aztables has read
// already; runtime.Payload keeps the bytes).
func replyBody(resp *http.Response) ([]byte, error) {
	if payload.Done(resp) {
		return payload.Read(resp, 0)
	}
	return runtime.Payload(resp)
}

// opError builds the error for the failed part. The operation's index comes
// from, in order: the "<index>:" prefix the service (and Azurite) put on the
// message; the part's position when there is one response per operation
// (Cosmos DB answers 424 for the others); the Content-ID, which Azurite
// numbers from 1 (tablekit sends none, as aztables, so the service has none
// to echo).
func opError(resp *http.Response, parts []txwire.Part, failed int, ops int) error {
	p := parts[failed]
	code, msg := wire.ErrorBody(p.Body)
	if code == "" {
		code = p.Get("x-ms-error-code")
	}
	msg = wire.FirstLine(msg)
	index := -1
	if i, rest, ok := txwire.SplitIndex(msg); ok {
		index, msg = i, strings.TrimSpace(rest)
	} else if len(parts) == ops {
		index = failed
	} else if n, err := strconv.Atoi(strings.TrimSpace(p.ContentID)); err == nil {
		index = n - 1
	}
	if index < 0 || index >= ops {
		index = -1
	}

	// The operation's response as azcore would have reported it alone.
	partResp := &http.Response{
		Status:        p.Status,
		StatusCode:    p.StatusCode,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        p.Header(),
		Body:          io.NopCloser(bytes.NewReader(p.Body)),
		ContentLength: int64(len(p.Body)),
		Request:       resp.Request,
	}
	var opResp error
	if code != "" {
		opResp = runtime.NewResponseErrorWithErrorCode(partResp, code)
	} else {
		opResp = runtime.NewResponseError(partResp)
	}
	return &tablekit.ServiceError{Operation: "transaction", StatusCode: p.StatusCode, Code: code, Message: msg, Index: index, Err: opResp}
}
