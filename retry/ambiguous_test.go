package retry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestAmbiguousWrites: a conditional update, merge or delete that commits
// but loses its response collides with itself on the retry (412, 404). That
// is reported as ambiguous, naming the operation; the same answers without
// an earlier lost attempt stay plain.
func TestAmbiguousWrites(t *testing.T) {
	r := newRig(t)
	p := testPolicy(&events{})
	c := r.client(t, &p, noAzRetry)
	upd := func(mode aztables.UpdateMode) func(context.Context, string, azcore.ETag) error {
		return func(ctx context.Context, rk string, etag azcore.ETag) error {
			_, err := c.UpdateEntity(ctx, entityJSON(t, "p", rk, 2), &aztables.UpdateEntityOptions{UpdateMode: mode, IfMatch: &etag})
			return err
		}
	}
	del := func(ctx context.Context, rk string, etag azcore.ETag) error {
		_, err := c.DeleteEntity(ctx, "p", rk, &aztables.DeleteEntityOptions{IfMatch: &etag})
		return err
	}
	drop := func(method string) []faults.Rule {
		return []faults.Rule{{Match: faults.And(faults.Method(method), faults.PathContains(r.name+"(")), Times: 1, Fault: faults.DropAfterForward()}}
	}
	tests := []struct {
		name   string
		write  func(context.Context, string, azcore.ETag) error
		rules  []faults.Rule
		stale  bool // write with an outdated ETag
		gone   bool // the entity does not exist
		wantOp string
		status int // of the last answer; 0 for success
	}{
		{"replace, response lost", upd(aztables.UpdateModeReplace), drop(http.MethodPut), false, false, "update", 412},
		{"merge, response lost", upd(aztables.UpdateModeMerge), drop(http.MethodPatch), false, false, "update", 412},
		{"delete, response lost", del, drop(http.MethodDelete), false, false, "delete", 404},
		{"replace, reset before the server", upd(aztables.UpdateModeReplace), []faults.Rule{{Match: faults.Method(http.MethodPut), Times: 1, Fault: faults.ResetBeforeForward()}}, false, false, "", 0},
		{"replace, genuinely stale", upd(aztables.UpdateModeReplace), nil, true, false, "", 412},
		{"delete, genuinely stale", del, nil, true, false, "", 412},
		{"delete, genuinely missing", del, nil, false, true, "", 404},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testenv.Ctx(t)
			rk := fmt.Sprint("w", i)
			r.px.SetRules()
			etag := azcore.ETag(`W/"datetime'2000-01-01T00%3A00%3A00.0000000Z'"`)
			if !tc.gone {
				resp, err := c.AddEntity(ctx, entityJSON(t, "p", rk, 1), nil)
				if err != nil {
					t.Fatal(err)
				}
				if !tc.stale {
					etag = resp.ETag
				}
			}
			r.px.SetRules(tc.rules...)
			err := tc.write(ctx, rk, etag)
			var ae *tablekit.MaybeCommittedError
			gotOp := ""
			if errors.As(err, &ae) {
				gotOp = ae.Operation
			}
			if gotOp != tc.wantOp {
				t.Errorf("ambiguous op: got %q, want %q (err %v)", gotOp, tc.wantOp, err)
			}
			if got, want := errors.Is(err, tablekit.ErrMaybeCommitted), tc.wantOp != ""; got != want {
				t.Errorf("errors.Is(tablekit.ErrMaybeCommitted): got %v, want %v", got, want)
			}
			gotStatus := 0
			var re *azcore.ResponseError
			if errors.As(err, &re) {
				gotStatus = re.StatusCode
			}
			if gotStatus != tc.status {
				t.Errorf("status: got %d, want %d (err %v)", gotStatus, tc.status, err)
			}
		})
	}
}
