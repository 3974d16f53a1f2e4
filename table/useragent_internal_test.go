package table

import (
	"context"
	"net/http"
	"regexp"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// TestUserAgent: with azcore's telemetry policy off the data pipeline,
// tablekit's requests still carry the User-Agent that policy writes (the
// ApplicationID first), and none when the caller turns telemetry off.
func TestUserAgent(t *testing.T) {
	tests := []struct {
		name string
		tel  policy.TelemetryOptions
		want *regexp.Regexp // nil: no User-Agent
	}{
		{"default", policy.TelemetryOptions{}, regexp.MustCompile(`^azsdk-go-tablekit/devel \(go[^;]+; [a-z0-9]+\)$`)},
		{"application id", policy.TelemetryOptions{ApplicationID: "app1"}, regexp.MustCompile(`^app1 azsdk-go-tablekit/devel \(go[^;]+; [a-z0-9]+\)$`)},
		{"telemetry off", policy.TelemetryOptions{Disabled: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			tr := transportFunc(func(r *http.Request) (*http.Response, error) {
				mu.Lock()
				got = append(got, r.Header.Values("User-Agent")...)
				mu.Unlock()
				return &http.Response{StatusCode: http.StatusNoContent, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
			})
			o := &Options{Transport: tr}
			o.Azcore.Telemetry = tt.tel
			svc, err := NewServiceWithSharedKey("http://127.0.0.1:10002/devstoreaccount1", devAccount, devKey, o)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := New[Entity](svc, "agents")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tb.Add(context.Background(), Entity{PartitionKey: "p", RowKey: "r"}); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == nil && len(got) != 0:
				t.Errorf("got User-Agent %q, want none", got)
			case tt.want != nil && (len(got) != 1 || !tt.want.MatchString(got[0])):
				t.Errorf("got User-Agent %q, want one matching %s", got, tt.want)
			}
		})
	}
}
