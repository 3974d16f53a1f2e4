package cosmos_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// get sends an unsigned GET to url: Azurite answers 403, the stand-in's
// throttling 429, so the answer says which of the two spoke.
func get(t *testing.T, hc *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestThrottleRules(t *testing.T) {
	_, cs, _ := standIn(t, nil)
	hc := cs.Client()
	defer hc.CloseIdleConnections()
	tests := []struct {
		name       string
		rule       cosmos.Throttle
		statuses   []int
		retryAfter string // x-ms-retry-after-ms of the 429s
	}{
		{"with x-ms-retry-after-ms", cosmos.Throttle{Times: 2, RetryAfter: 250 * time.Millisecond}, []int{429, 429, 403}, "250"},
		{"rounded up to a millisecond", cosmos.Throttle{Times: 1, RetryAfter: 1500 * time.Microsecond}, []int{429, 403}, "2"},
		{"without the header", cosmos.Throttle{Times: 1}, []int{429, 403}, ""},
		{"only matching requests", cosmos.Throttle{Match: faults.PathContains("/nothing"), Times: 1}, []int{403, 403}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs.SetThrottle(tt.rule)
			cs.Reset()
			throttled := 0
			for i, want := range tt.statuses {
				resp, body := get(t, hc, cs.Endpoint()+"/Tables")
				if got := resp.StatusCode; got != want {
					t.Fatalf("request %d: got %d, want %d", i, got, want)
				}
				if want != 429 {
					continue
				}
				throttled++
				if got := resp.Header.Get("x-ms-retry-after-ms"); got != tt.retryAfter {
					t.Errorf("request %d: x-ms-retry-after-ms got %q, want %q", i, got, tt.retryAfter)
				}
				if !strings.Contains(body, `"code":"TooManyRequests"`) || !strings.Contains(body, "Request rate is large") {
					t.Errorf("request %d: body got %s, want TooManyRequests and Request rate is large", i, body)
				}
			}
			if got := cs.Stats().Throttled; got != throttled {
				t.Errorf("counted: got %d, want %d", got, throttled)
			}
		})
	}
	cs.SetThrottle()
}

// TestThroughput: a bucket of 2 refilled at 20 a second lets two requests
// through at once and throttles the next ones for about 50 ms.
func TestThroughput(t *testing.T) {
	_, cs, _ := standIn(t, nil)
	hc := cs.Client()
	defer hc.CloseIdleConnections()
	cs.SetThroughput(20, 2)
	var statuses []int
	var waits []int
	for range 4 {
		resp, _ := get(t, hc, cs.Endpoint()+"/Tables")
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode == 429 {
			ms, err := strconv.Atoi(resp.Header.Get("x-ms-retry-after-ms"))
			if err != nil {
				t.Fatalf("x-ms-retry-after-ms: %v", err)
			}
			waits = append(waits, ms)
		}
	}
	if statuses[0] != 403 || statuses[1] != 403 || statuses[3] != 429 {
		t.Fatalf("statuses: got %v, want 403 403 then 429s", statuses)
	}
	for _, ms := range waits {
		if ms < 1 || ms > 50 {
			t.Errorf("x-ms-retry-after-ms: got %d, want 1 to 50", ms)
		}
	}
	time.Sleep(time.Duration(waits[len(waits)-1]+10) * time.Millisecond)
	if resp, _ := get(t, hc, cs.Endpoint()+"/Tables"); resp.StatusCode != 403 {
		t.Errorf("after the wait: got %d, want 403", resp.StatusCode)
	}
	cs.SetThroughput(0, 0)
	for range 5 {
		if resp, _ := get(t, hc, cs.Endpoint()+"/Tables"); resp.StatusCode != 403 {
			t.Fatalf("throughput off: got %d, want 403", resp.StatusCode)
		}
	}
}

// TestThrottleInBody: a throttled $batch can be answered 202 with the 429
// inside; nothing of it is written.
func TestThrottleInBody(t *testing.T) {
	env, cs, tr := standIn(t, nil)
	c := newAzTable(t, service(t, env, cs.Endpoint(), tr))
	cs.SetThrottle(cosmos.Throttle{Match: faults.PathContains("$batch"), Times: 1, RetryAfter: 30 * time.Millisecond, InBody: true})
	actions := []aztables.TransactionAction{
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "1", nil)},
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "2", nil)},
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "3", nil)},
	}
	_, err := c.SubmitTransaction(testenv.Ctx(t), actions, nil)
	if got, _ := status(t, err); got != http.StatusAccepted {
		t.Fatalf("throttled $batch: got %v, want a 202 failure", err)
	}
	reply := tr.lastBody()
	if got, want := strings.Count(reply, "HTTP/1.1 424 Failed Dependency"), 2; got != want {
		t.Errorf("424 parts: got %d, want %d in %s", got, want, short(reply))
	}
	for _, want := range []string{"HTTP/1.1 429 Too Many Requests", "x-ms-retry-after-ms: 30", `"0:Message: {\"Errors\":[\"Request rate is large`} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply: got %s, want %q", short(reply), want)
		}
	}
	_, err = c.GetEntity(testenv.Ctx(t), "p", "1", nil)
	if got, _ := status(t, err); got != http.StatusNotFound {
		t.Errorf("after a throttled $batch: got %v, want 404", err)
	}
	// The rule is spent: the same transaction now commits.
	if _, err := c.SubmitTransaction(testenv.Ctx(t), actions, nil); err != nil {
		t.Fatalf("second $batch: %v", err)
	}
}
