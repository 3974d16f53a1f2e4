package cosmos_test

import (
	"errors"
	"net"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestUnsupportedCalls: the calls the Table API does not have are answered
// by the stand-in and counted, so that a test can assert a client sent none.
func TestUnsupportedCalls(t *testing.T) {
	env, cs, tr := standIn(t, nil)
	svc := service(t, env, cs.Endpoint(), tr)
	c := newAzTable(t, svc)
	tests := []struct {
		call string
		send func() error
	}{
		{"service properties", func() error { _, err := svc.GetProperties(testenv.Ctx(t), nil); return err }},
		{"service properties", func() error {
			_, err := svc.SetProperties(testenv.Ctx(t), aztables.ServiceProperties{}, nil)
			return err
		}},
		{"service stats", func() error { _, err := svc.GetStatistics(testenv.Ctx(t), nil); return err }},
		{"table acl", func() error { _, err := c.GetAccessPolicy(testenv.Ctx(t), nil); return err }},
		{"table acl", func() error { _, err := c.SetAccessPolicy(testenv.Ctx(t), nil); return err }},
		{"cors", func() error {
			req, _ := http.NewRequest(http.MethodOptions, cs.Endpoint()+"/t", nil)
			resp, err := tr.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			return runtime.NewResponseError(resp)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.call, func(t *testing.T) {
			cs.Reset()
			got, code := status(t, tt.send())
			if got != http.StatusNotImplemented || code != "NotImplemented" {
				t.Errorf("got %d %q, want 501 NotImplemented", got, code)
			}
			if n := cs.Stats().Unsupported[tt.call]; n != 1 {
				t.Errorf("counted as %q: got %d, want 1", tt.call, n)
			}
		})
	}
	// A client of the secondary host fails to dial, as no such host exists.
	cs.Reset()
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: tr, Retry: policy.RetryOptions{MaxRetries: -1}}}
	sec, err := aztables.NewServiceClientWithSharedKey("https://devstoreaccount1-secondary.table.cosmos.azure.com", env.Credential(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sec.GetStatistics(testenv.Ctx(t), nil)
	var dns *net.DNSError
	if !errors.As(err, &dns) || !dns.IsNotFound {
		t.Errorf("secondary: got %v, want a not-found DNS error", err)
	}
	if got := cs.Stats(); got.Unsupported["secondary"] != 1 || got.Requests != 0 {
		t.Errorf("secondary: got %+v, want one secondary dial and no request", got)
	}
}
