package retry

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	date := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"none", http.Header{}, 0},
		{"nil", nil, 0},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"seconds with spaces", http.Header{"Retry-After": {" 2 "}}, 2 * time.Second},
		{"zero", http.Header{"Retry-After": {"0"}}, 0},
		{"negative", http.Header{"Retry-After": {"-5"}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"fraction", http.Header{"Retry-After": {"1.5"}}, 0},
		{"http date", http.Header{"Retry-After": {date(7 * time.Second)}}, 7 * time.Second},
		{"rfc850 date", http.Header{"Retry-After": {now.Add(4 * time.Second).Format(time.RFC850)}}, 4 * time.Second},
		{"past date", http.Header{"Retry-After": {date(-time.Minute)}}, 0},
		{"retry-after-ms", http.Header{"Retry-After-Ms": {"250"}}, 250 * time.Millisecond},
		{"x-ms-retry-after-ms", http.Header{"X-Ms-Retry-After-Ms": {"1500"}}, 1500 * time.Millisecond},
		{"largest wins", http.Header{"Retry-After-Ms": {"250"}, "X-Ms-Retry-After-Ms": {"900"}, "Retry-After": {"0"}}, 900 * time.Millisecond},
		{"seconds beat ms", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, time.Second},
		{"huge is clipped", http.Header{"Retry-After": {"99999999999999999999999"}}, time.Duration(1<<32) * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryAfter(tc.header, now); got != tc.want {
				t.Errorf("retryAfter(%v): got %v, want %v", tc.header, got, tc.want)
			}
		})
	}
}
