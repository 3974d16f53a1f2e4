package batch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// fakeService answers $batch requests with replies made by reply, given
// the call number (from 1) and the number of operations in the request.
type fakeService struct {
	mu    sync.Mutex
	calls int
	reply func(call, ops int) (status int, contentType, body string)
}

func (f *fakeService) Do(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	ops := bytes.Count(b, []byte("\r\nContent-Type: application/http\r\n"))
	f.mu.Lock()
	f.calls++
	call := f.calls
	f.mu.Unlock()
	status, ct, body := f.reply(call, ops)
	h := http.Header{}
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	return &http.Response{StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r, ContentLength: int64(len(body))}, nil
}

func (f *fakeService) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

const replyType = "multipart/mixed; boundary=batchresponse_x"

// okReply is a success reply for n operations.
func okReply(n int) string {
	var b strings.Builder
	b.WriteString("--batchresponse_x\r\nContent-Type: multipart/mixed; boundary=changesetresponse_y\r\n\r\n")
	for i := range n {
		fmt.Fprintf(&b, "--changesetresponse_y\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 204 No Content\r\nETag: W/\"datetime'2025-01-01T00%%3A00%%3A0%d.0000000Z'\"\r\n\r\n\r\n", i%10)
	}
	b.WriteString("--changesetresponse_y--\r\n--batchresponse_x--\r\n")
	return b.String()
}

// failReply is a reply whose operation index failed with status and code.
func failReply(index, status int, code string) string {
	return "--batchresponse_x\r\nContent-Type: multipart/mixed; boundary=changesetresponse_y\r\n\r\n" +
		"--changesetresponse_y\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n\r\n", status, http.StatusText(status)) +
		fmt.Sprintf(`{"odata.error":{"code":%q,"message":{"lang":"en-US","value":"%d:Busy.\nRequestId:x"}}}`, code, index) +
		"\r\n--changesetresponse_y--\r\n--batchresponse_x--\r\n"
}

func fakeTable(t *testing.T, f *fakeService) *table.Table[item] {
	t.Helper()
	svc, err := table.NewServiceWithSharedKey("http://127.0.0.1:9/devstoreaccount1", "devstoreaccount1",
		"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
		&table.Options{Transport: f, Retry: &retry.Policy{InitialInterval: time.Millisecond, MaxAttempts: 3}})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[item](svc, "faketable")
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// wrappedFakeTable is fakeTable given to table.Wrap: its transactions go
// through aztables' SubmitTransaction.
func wrappedFakeTable(t *testing.T, f *fakeService) *table.Table[item] {
	t.Helper()
	built := fakeTable(t, f)
	tbl, err := table.Wrap[item](built.Client(), built.Name())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func threeOps(tbl *table.Table[item]) *batch.Transaction[item] {
	return batch.New(tbl).
		Upsert(item{PartitionKey: "p", RowKey: "a"}, table.Replace).
		Upsert(item{PartitionKey: "p", RowKey: "b"}, table.Replace).
		Upsert(item{PartitionKey: "p", RowKey: "c"}, table.Replace)
}

// TestInBatchFailureIsRetryable: a 503 inside a 202 reply is invisible to
// the pipeline; the OpError lets retry.IsRetryable see the operation's
// status, so retry.Do retries it, and Write does.
func TestInBatchFailureIsRetryable(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		code      string
		retryable bool
		sentinel  error
	}{
		{"server busy", 503, "ServerBusy", true, tablekit.ErrThrottled},
		{"operation timed out", 500, "OperationTimedOut", true, tablekit.ErrThrottled},
		{"conflict", 409, "EntityAlreadyExists", false, tablekit.ErrAlreadyExists},
		{"bad request", 400, "InvalidInput", false, tablekit.ErrService},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeService{reply: func(call, ops int) (int, string, string) {
				if call == 1 {
					return 202, replyType, failReply(1, tt.status, tt.code)
				}
				return 202, replyType, okReply(ops)
			}}
			tbl := fakeTable(t, f)
			ctx := testenv.Ctx(t)
			_, err := threeOps(tbl).Submit(ctx)
			var oe *tablekit.ServiceError
			if !errors.As(err, &oe) || oe.Index != 1 || oe.StatusCode != tt.status || oe.Code != tt.code || oe.Message != "Busy." {
				t.Fatalf("Submit: %v (%+v)", err, oe)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("error does not match %v", tt.sentinel)
			}
			if got := retry.IsRetryable(err); got != tt.retryable {
				t.Errorf("retry.IsRetryable = %v, want %v", got, tt.retryable)
			}
			if f.count() != 1 {
				t.Errorf("the pipeline sent %d requests, want 1 (a 202 is not retried by it)", f.count())
			}

			// The same first reply through Write: retried when retryable.
			f2 := &fakeService{reply: f.reply}
			tbl2 := fakeTable(t, f2)
			var retries []retry.Event
			var mu sync.Mutex
			sum, err := batch.Write(ctx, tbl2, []batch.Op[item]{
				{Entity: item{PartitionKey: "p", RowKey: "a"}},
				{Entity: item{PartitionKey: "p", RowKey: "b"}},
			}, &batch.WriteOptions{Retry: &retry.Policy{InitialInterval: time.Millisecond, OnRetry: func(ev retry.Event) {
				mu.Lock()
				retries = append(retries, ev)
				mu.Unlock()
			}}})
			if tt.retryable {
				if err != nil || sum.Ops != 2 || sum.Retries != 1 || len(retries) != 1 || retries[0].Status != tt.status {
					t.Errorf("Write: %v, summary %+v, hook saw %d retries", err, sum, len(retries))
				}
				if f2.count() != 2 {
					t.Errorf("%d requests, want 2", f2.count())
				}
				return
			}
			if !errors.Is(err, tablekit.ErrIncomplete) || !errors.Is(err, tt.sentinel) || sum.Retries != 0 || f2.count() != 1 {
				t.Errorf("Write: %v, summary %+v, %d requests", err, sum, f2.count())
			}
			if sum.State(0) != batch.Failed || sum.State(1) != batch.Failed {
				t.Errorf("states %v %v, want Failed", sum.State(0), sum.State(1))
			}
		})
	}
}

// TestUnreadableReplies: a reply that cannot be read is a ReplyError (the
// outcome is unknown), never a panic, also through table.Wrap, where
// aztables itself panics reading some. It is a reply broken in transit:
// retryable, as a cut-short one is.
func TestUnreadableReplies(t *testing.T) {
	tests := []struct {
		name   string
		status int
		ct     string
		body   string
	}{
		{"empty 202", 202, "", ""}, // aztables v1.4.1 panics slicing this
		{"one byte", 202, "", "x"}, // and this
		{"not multipart", 202, "text/plain", "hello\r\nworld\r\n"},
		{"no status line", 202, replyType, "--batchresponse_x\r\nContent-Type: application/http\r\n\r\ngarbage\r\n--batchresponse_x--\r\n"},
		{"too few responses", 202, replyType, okReply(2)},
		{"too many responses", 202, replyType, okReply(4)},
	}
	for _, tt := range tests {
		for name, open := range map[string]func(*testing.T, *fakeService) *table.Table[item]{"built": fakeTable, "wrapped": wrappedFakeTable} {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				f := &fakeService{reply: func(int, int) (int, string, string) { return tt.status, tt.ct, tt.body }}
				_, err := threeOps(open(t, f)).Submit(testenv.Ctx(t))
				var re *tablekit.MaybeCommittedError
				if !errors.Is(err, tablekit.ErrMaybeCommitted) || !errors.As(err, &re) {
					t.Fatalf("error %v, want a *tablekit.MaybeCommittedError", err)
				}
				var b *errmap.Broken
				if !errors.As(err, &b) || b.StatusCode != 202 {
					t.Errorf("the broken 202 is not reachable: %v", err)
				}
				if !retry.IsRetryable(err) || errors.Is(err, tablekit.ErrUnavailable) {
					t.Errorf("retryable %v, tablekit.ErrUnavailable %v; want retryable and ErrMaybeCommitted alone", retry.IsRetryable(err), errors.Is(err, tablekit.ErrUnavailable))
				}
			})
		}
	}
}

// TestWholeRequestFailures: failures of the whole request keep their
// status, code and table sentinel.
func TestWholeRequestFailures(t *testing.T) {
	tests := []struct {
		status   int
		code     string
		sentinel error
	}{
		{413, "RequestBodyTooLarge", tablekit.ErrTooLarge},
		{403, "AuthorizationFailure", tablekit.ErrForbidden},
		{404, "TableNotFound", tablekit.ErrTableNotFound},
		{400, "InvalidInput", tablekit.ErrService},
	}
	for _, tt := range tests {
		f := &fakeService{reply: func(int, int) (int, string, string) {
			return tt.status, "application/json", fmt.Sprintf(`{"odata.error":{"code":%q,"message":{"value":"no"}}}`, tt.code)
		}}
		_, err := threeOps(fakeTable(t, f)).Submit(testenv.Ctx(t))
		var se *tablekit.ServiceError
		if !errors.Is(err, tt.sentinel) || !errors.As(err, &se) || se.StatusCode != tt.status || se.Code != tt.code {
			t.Errorf("%d %s: error %v", tt.status, tt.code, err)
		}
	}
}

func TestSubmitContextCanceled(t *testing.T) {
	f := &fakeService{reply: func(_, ops int) (int, string, string) { return 202, replyType, okReply(ops) }}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := threeOps(fakeTable(t, f)).Submit(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// TestWriteBookkeeping drives Write against a fake service with many
// interleaved partitions, a tiny buffer, retryable and final in-batch
// failures: the Summary's counts must match what the service committed.
func TestWriteBookkeeping(t *testing.T) {
	for _, reorder := range []bool{false, true} {
		t.Run(fmt.Sprint("reorder=", reorder), func(t *testing.T) {
			var mu sync.Mutex
			committed := 0
			f := &fakeService{reply: func(call, ops int) (int, string, string) {
				switch {
				case call%7 == 0:
					return 202, replyType, failReply(0, 503, "ServerBusy") // retried
				case call%23 == 0:
					return 202, replyType, failReply(ops-1, 409, "EntityAlreadyExists") // final
				case call%31 == 0:
					return 503, "application/json", `{"odata.error":{"code":"ServerBusy","message":{"value":"busy"}}}`
				}
				mu.Lock()
				committed += ops
				mu.Unlock()
				return 202, replyType, okReply(ops)
			}}
			tbl := fakeTable(t, f)
			const n = 3000
			seq := func(yield func(batch.Op[item]) bool) {
				for i := range n {
					e := item{PartitionKey: fmt.Sprint("p", i%60), RowKey: fmt.Sprint("r", i%1000), N: int64(i)}
					if i%5 == 0 {
						e.S = strings.Repeat("x", 20000)
					}
					if !yield(batch.Op[item]{Entity: e}) {
						return
					}
				}
			}
			var calls []batch.Progress
			sum, err := batch.WriteSeq(testenv.Ctx(t), tbl, seq, &batch.WriteOptions{
				InFlight: 3, MaxBuffered: 1 << 20, ContinueOnError: true, Reorder: reorder,
				Retry:    &retry.Policy{InitialInterval: time.Millisecond, MaxInterval: time.Millisecond, MaxAttempts: 4},
				Progress: func(p batch.Progress) { calls = append(calls, p) },
			})
			if !errors.Is(err, tablekit.ErrIncomplete) || !errors.Is(err, tablekit.ErrAlreadyExists) {
				t.Fatalf("WriteSeq: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if sum.Ops != committed {
				t.Errorf("Summary.Ops = %d, the service committed %d", sum.Ops, committed)
			}
			count := map[batch.State]int{}
			for i := range n {
				count[sum.State(i)]++
			}
			inChunks := 0
			for _, c := range sum.Incomplete {
				inChunks += len(c.Ops)
				for _, i := range c.Ops {
					if sum.State(i) != c.State {
						t.Fatalf("op %d: State %v, its chunk %v", i, sum.State(i), c.State)
					}
				}
			}
			if count[batch.Committed] != committed || sum.Read != n || count[batch.Unknown] != 0 {
				t.Errorf("states %v, read %d; %d committed", count, sum.Read, committed)
			}
			if count[batch.Failed] == 0 || count[batch.NotSent] == 0 {
				t.Errorf("states %v: the fake fails some transactions, whose partitions stop", count)
			}
			last := calls[len(calls)-1]
			if !last.Final || last.Ops != committed || last.OpsTotal != n || last.Chunks+last.Failed != last.ChunksTotal || last.Retries != sum.Retries {
				t.Errorf("last Progress %+v, summary %+v", last, sum)
			}
			if sum.Retries == 0 {
				t.Error("no retries counted")
			}
			t.Logf("%d requests; states %v; %d chunks incomplete holding %d ops; %d retries", f.count(), count, len(sum.Incomplete), inChunks, sum.Retries)
		})
	}
}
