package tablekit_test

import (
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

type row struct {
	PartitionKey, RowKey string
	N                    int64
}

type wide struct {
	PartitionKey, RowKey string
	N                    int32
}

// sentinels are every outcome of the error model: an error matches at most
// one of them.
var sentinels = []error{
	tablekit.ErrNotFound, tablekit.ErrTableNotFound, tablekit.ErrAlreadyExists,
	tablekit.ErrTableBeingDeleted, tablekit.ErrPreconditionFailed, tablekit.ErrForbidden,
	tablekit.ErrTooLarge, tablekit.ErrThrottled, tablekit.ErrService, tablekit.ErrUnavailable,
	tablekit.ErrMaybeCommitted, tablekit.ErrInvalid, tablekit.ErrDecode, tablekit.ErrUnsupported,
	tablekit.ErrIncomplete, tablekit.ErrPositionLost,
}

func isService(err error) bool {
	var se *tablekit.ServiceError
	var re *azcore.ResponseError
	return errors.As(err, &se) && errors.As(err, &re)
}

func isValidation(err error) bool {
	var ve *tablekit.ValidationError
	return errors.As(err, &ve)
}

func isDecode(err error) bool {
	var de *tablekit.DecodeError
	return errors.As(err, &de)
}

func isMaybe(err error) bool {
	var mc *tablekit.MaybeCommittedError
	return errors.As(err, &mc)
}

func noType(error) bool { return true }

// TestErrorModel walks a representative failure of each row of the table
// in the package documentation, against Azurite (behind the fault proxy
// where the failure is a fault) and the Cosmos DB stand-in, and checks
// what errors.Is and errors.As give.
func TestErrorModel(t *testing.T) {
	env, px := testenv.Proxied(t)
	fast := &retry.Policy{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond, MaxAttempts: 2}
	svc, err := table.NewServiceWithSharedKey(px.Endpoint(env.Account), env.Account, env.Key, &table.Options{Retry: fast})
	if err != nil {
		t.Fatal(err)
	}
	tbl := testenv.NewTable[row](t, svc)
	ctx := testenv.Context(t, time.Minute)
	stored, err := tbl.Upsert(ctx, row{PartitionKey: "p", RowKey: "r", N: 1}, table.Replace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Update(ctx, row{PartitionKey: "p", RowKey: "r", N: 2}, table.Replace, stored.ETag); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Upsert(ctx, row{PartitionKey: "p", RowKey: "big", N: 1 << 40}, table.Replace); err != nil {
		t.Fatal(err)
	}
	wrongKey, err := table.NewServiceWithSharedKey(px.Endpoint(env.Account), env.Account, "d3Jvbmc=", &table.Options{Retry: fast})
	if err != nil {
		t.Fatal(err)
	}
	cosmos := env.CosmosService(t, env.Cosmos(t, nil), nil)
	entity := func(method string) func(*http.Request) bool {
		return faults.And(faults.Method(method), faults.PathContains(tbl.Name()))
	}
	tests := []struct {
		name  string
		rules []faults.Rule
		call  func() error
		is    error
		as    func(error) bool
	}{
		{"New: bad table name", nil, func() error { _, err := table.New[row](svc, "1x"); return err }, tablekit.ErrInvalid, isValidation},
		{"ParseGUID: not a GUID", nil, func() error { _, err := table.ParseGUID("not-a-guid"); return err }, tablekit.ErrInvalid, isValidation},
		{"GUID.UnmarshalText: not a GUID", nil, func() error { var g table.GUID; return g.UnmarshalText([]byte("{1234}")) }, tablekit.ErrInvalid, isValidation},
		{"Upsert: unknown Mode", nil, func() error { _, err := tbl.Upsert(ctx, row{PartitionKey: "p", RowKey: "m"}, 9); return err }, tablekit.ErrInvalid, isValidation},
		{"Get: missing entity", nil, func() error { _, err := tbl.Get(ctx, "p", "none", nil); return err }, tablekit.ErrNotFound, isService},
		{"Get: missing table", nil, func() error {
			other, err := table.New[row](svc, "nosuchtable")
			if err != nil {
				return err
			}
			_, err = other.Get(ctx, "p", "r", nil)
			return err
		}, tablekit.ErrTableNotFound, isService},
		{"Add: exists", nil, func() error { _, err := tbl.Add(ctx, row{PartitionKey: "p", RowKey: "r"}); return err }, tablekit.ErrAlreadyExists, isService},
		{"Update: stale ETag", nil, func() error {
			_, err := tbl.Update(ctx, row{PartitionKey: "p", RowKey: "r"}, table.Replace, stored.ETag)
			return err
		}, tablekit.ErrPreconditionFailed, isService},
		{"Get: wrong key", nil, func() error {
			other, err := table.New[row](wrongKey, tbl.Name())
			if err != nil {
				return err
			}
			_, err = other.Get(ctx, "p", "r", nil)
			return err
		}, tablekit.ErrForbidden, isService},
		{"Upsert: 413", []faults.Rule{{Match: entity(http.MethodPut), Fault: faults.Status(413, "RequestBodyTooLarge", nil)}},
			func() error {
				_, err := tbl.Upsert(ctx, row{PartitionKey: "p", RowKey: "r2"}, table.Replace)
				return err
			}, tablekit.ErrTooLarge, isService},
		{"Get: 503 until the policy gives up", []faults.Rule{{Match: entity(http.MethodGet), Fault: faults.Status(503, "ServerBusy", nil)}},
			func() error { _, err := tbl.Get(ctx, "p", "r", nil); return err }, tablekit.ErrThrottled, isService},
		{"CreateTable: being deleted", []faults.Rule{{Match: faults.PathContains("Tables"), Fault: faults.Status(409, "TableBeingDeleted", nil)}},
			func() error { return svc.CreateTable(ctx, "beingdeleted") }, tablekit.ErrTableBeingDeleted, isService},
		{"Get: 501", []faults.Rule{{Match: entity(http.MethodGet), Fault: faults.Status(501, "NotImplemented", nil)}},
			func() error { _, err := tbl.Get(ctx, "p", "r", nil); return err }, tablekit.ErrService, isService},
		{"Get: reset on every attempt", []faults.Rule{{Match: entity(http.MethodGet), Fault: faults.ResetBeforeForward()}},
			func() error { _, err := tbl.Get(ctx, "p", "r", nil); return err }, tablekit.ErrUnavailable, noType},
		{"Get: reply cut short on every attempt", []faults.Rule{{Match: entity(http.MethodGet), Fault: faults.TruncateAfterForward()}},
			func() error { _, err := tbl.Get(ctx, "p", "r", nil); return err }, tablekit.ErrUnavailable, noType},
		{"Add: reply lost, the retry finds it", []faults.Rule{{Match: entity(http.MethodPost), Times: 1, Fault: faults.DropAfterForward()}},
			func() error { _, err := tbl.Add(ctx, row{PartitionKey: "p", RowKey: "lost"}); return err }, tablekit.ErrMaybeCommitted, isMaybe},
		{"Upsert: reply lost on every attempt", []faults.Rule{{Match: entity(http.MethodPut), Fault: faults.DropAfterForward()}},
			func() error {
				_, err := tbl.Upsert(ctx, row{PartitionKey: "p", RowKey: "r3"}, table.Replace)
				return err
			}, tablekit.ErrMaybeCommitted, isMaybe},
		{"Get: stored value does not fit", nil, func() error {
			narrow, err := table.As[wide](tbl)
			if err != nil {
				return err
			}
			_, err = narrow.Get(ctx, "p", "big", nil)
			return err
		}, tablekit.ErrDecode, isDecode},
		{"Properties on Cosmos DB", nil, func() error { _, err := cosmos.Properties(ctx); return err }, tablekit.ErrUnsupported, noType},
		{"batch.Write: one op refused", nil, func() error {
			_, err := batch.Write(ctx, tbl, []batch.Op[row]{{Kind: batch.Add, Entity: row{PartitionKey: "p", RowKey: "r"}}}, nil)
			return err
		}, tablekit.ErrIncomplete, isService},
		{"Transaction: bad op", nil, func() error {
			_, err := batch.New(tbl).Update(row{PartitionKey: "p", RowKey: "r"}, table.Replace, "").Submit(ctx)
			return err
		}, tablekit.ErrInvalid, isValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			px.SetRules(tt.rules...)
			defer px.SetRules()
			err := tt.call()
			if !errors.Is(err, tt.is) || !tt.as(err) {
				t.Fatalf("got %v (%T), want errors.Is %v and its type", err, err, tt.is)
			}
			for _, s := range sentinels {
				if s != tt.is && s != tablekit.ErrIncomplete && errors.Is(err, s) && tt.is != tablekit.ErrIncomplete {
					t.Errorf("got %v, which also matches %v", err, s)
				}
			}
			if strings.Contains(err.Error(), "sig=") || strings.Contains(err.Error(), env.Key) {
				t.Errorf("message %q holds a signature or key", err)
			}
		})
	}
}
