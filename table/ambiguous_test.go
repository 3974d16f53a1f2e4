package table_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestAmbiguousUpdateAndDelete: a conditional write whose response is lost
// (or cut short) is retried; the retry's 412 or 404 is the write's own
// doing, so the caller hears "maybe committed" (or, for a delete that finds
// the entity gone, success), never a plain precondition failure or
// not-found. Verify tells what happened.
//
// On Cosmos DB (Options.Backend, in front of the same emulator) a merge goes
// as POST with X-HTTP-Method: MERGE, and is still a conditional update.
func TestAmbiguousUpdateAndDelete(t *testing.T) {
	for _, be := range []table.Backend{table.TableStorage, table.CosmosDB} {
		t.Run(be.String(), func(t *testing.T) { testAmbiguousUpdateAndDelete(t, be) })
	}
}

func testAmbiguousUpdateAndDelete(t *testing.T, be table.Backend) {
	tbl, px := proxied(t, table.Options{Retry: &fast, Backend: be})
	merge := http.MethodPatch
	if be == table.CosmosDB {
		merge = http.MethodPost
	}
	once := func(method string, f faults.Fault) faults.Rule {
		return faults.Rule{Match: faults.And(faults.Method(method), faults.PathContains("(")), Times: 1, Fault: f}
	}
	update := func(mode table.Mode) func(context.Context, Row, azcore.ETag) error {
		return func(ctx context.Context, e Row, etag azcore.ETag) error {
			_, err := tbl.Update(ctx, e, mode, etag)
			return err
		}
	}
	del := func(ctx context.Context, e Row, etag azcore.ETag) error {
		return tbl.Delete(ctx, e.PartitionKey, e.RowKey, etag)
	}
	tests := []struct {
		name     string
		write    func(context.Context, Row, azcore.ETag) error
		mode     table.Mode // for Verify; 0 for a delete
		rules    []faults.Rule
		stale    bool  // write with an outdated ETag
		missing  bool  // no entity stored first
		want     error // nil: success
		verified bool  // Verify's answer afterwards
	}{
		{"replace, response lost", update(table.Replace), table.Replace, []faults.Rule{once(http.MethodPut, faults.DropAfterForward())}, false, false, tablekit.ErrMaybeCommitted, true},
		{"merge, response lost", update(table.Merge), table.Merge, []faults.Rule{once(merge, faults.DropAfterForward())}, false, false, tablekit.ErrMaybeCommitted, true},
		{"replace, 412 cut short", update(table.Replace), table.Replace, []faults.Rule{once(http.MethodPut, faults.TruncateAfterForward())}, true, false, tablekit.ErrMaybeCommitted, false},
		{"replace, genuinely stale", update(table.Replace), table.Replace, nil, true, false, tablekit.ErrPreconditionFailed, false},
		{"delete, response lost", del, 0, []faults.Rule{once(http.MethodDelete, faults.DropAfterForward())}, false, false, nil, false},
		{"delete, genuinely stale", del, 0, nil, true, false, tablekit.ErrPreconditionFailed, false},
		{"delete, genuinely missing", del, 0, nil, false, true, tablekit.ErrNotFound, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testenv.Ctx(t)
			px.SetRules()
			e := Row{"p", fmt.Sprint("u", i), 1}
			etag := azcore.ETag(`W/"datetime'2000-01-01T00%3A00%3A00.0000000Z'"`)
			if !tc.missing {
				res, err := tbl.Add(ctx, e)
				if err != nil {
					t.Fatal(err)
				}
				if !tc.stale {
					etag = res.ETag
				}
			}
			e.V = 2
			px.SetRules(tc.rules...)
			err := tc.write(ctx, e, etag)
			px.SetRules()
			if tc.want == nil && err != nil {
				t.Fatalf("got %v, want success", err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want an error matching %v", err, tc.want)
			}
			if tc.want == tablekit.ErrMaybeCommitted {
				if errors.Is(err, tablekit.ErrPreconditionFailed) {
					t.Errorf("got %v, want tablekit.ErrMaybeCommitted alone, not a precondition failure or an insert", err)
				}
				var ae *tablekit.MaybeCommittedError
				if !errors.As(err, &ae) || ae.Operation != "update" {
					t.Errorf("got %v, want an AmbiguousError for an update", err)
				}
			}
			if tc.mode == 0 {
				if _, err := tbl.Get(ctx, e.PartitionKey, e.RowKey, nil); !errors.Is(err, tablekit.ErrNotFound) && !tc.stale {
					t.Errorf("after the delete: Get err = %v, want tablekit.ErrNotFound", err)
				}
				return
			}
			same, stored, err := tbl.Verify(ctx, e, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			if same != tc.verified {
				t.Errorf("Verify: got %v, want %v", same, tc.verified)
			}
			if got, err := tbl.Get(ctx, e.PartitionKey, e.RowKey, nil); err != nil || (same && stored.ETag == "") {
				t.Errorf("stored %+v, %v; Verify result %+v", got, err, stored)
			}
		})
	}
}
