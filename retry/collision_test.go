package retry_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/azerrors"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
)

// TestDeleteCollisions: after a reset, a delete's 404 and 412 are both its
// own possible doing, while a missing table is not. Azurite cannot stage
// the 412 (someone re-creating the entity between attempts), so a scripted
// transport does.
func TestDeleteCollisions(t *testing.T) {
	p := retry.Policy{InitialInterval: time.Millisecond, MaxAttempts: 3}
	tests := []struct {
		name      string
		status    int
		code      string
		ambiguous bool
	}{
		{"reset, then 404", 404, "ResourceNotFound", true},
		{"reset, then 412", 412, "UpdateConditionNotSatisfied", true},
		{"reset, then table gone", 404, "TableNotFound", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ft := &fakeTransport{script: func(n int, req *http.Request) (*http.Response, error) {
				if n == 1 {
					return nil, resetErr(req)
				}
				return azerrors.Reply(req, tc.status, tc.code, nil), nil
			}}
			c := fakeClient(t, ft, &p, noAzRetry)
			etag := azcore.ETag(`W/"x"`)
			_, err := c.DeleteEntity(testenv.Ctx(t), "p", "r", &aztables.DeleteEntityOptions{IfMatch: &etag})
			var ae *tablekit.MaybeCommittedError
			if got := errors.As(err, &ae) && ae.Operation == "delete"; got != tc.ambiguous {
				t.Errorf("ambiguous delete: got %v, want %v (err %v)", got, tc.ambiguous, err)
			}
			if !isStatus(tc.status)(err) {
				t.Errorf("got %v, want the %d reachable", err, tc.status)
			}
		})
	}
}
