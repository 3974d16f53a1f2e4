package wire

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestQuoteString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "''"},
		{"abc", "'abc'"},
		{"O'Brien", "'O''Brien'"},
		{"''", "''''''"},
		{"a\"b ü", "'a\"b ü'"},
	}
	for _, tt := range tests {
		if got := QuoteString(tt.in); got != tt.want {
			t.Errorf("QuoteString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestSelectList(t *testing.T) {
	has := func(n string) bool { return n == "A" || n == "B" }
	tests := []struct {
		names   []string
		want    string
		wantErr bool
	}{
		{nil, "PartitionKey,RowKey", false},
		{[]string{"B", "A"}, "PartitionKey,RowKey,B,A", false},
		{[]string{"RowKey", "A", "PartitionKey"}, "PartitionKey,RowKey,A", false},
		{[]string{"A", "C"}, "", true},
	}
	for _, tt := range tests {
		got, err := SelectList(tt.names, has)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("SelectList(%q) = %q, %v; want %q, error %v", tt.names, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestTimestampFromETag(t *testing.T) {
	tests := []struct {
		etag string
		want time.Time
	}{
		{`W/"datetime'2024-01-02T03%3A04%3A05.1234567Z'"`, time.Date(2024, 1, 2, 3, 4, 5, 123456700, time.UTC)},
		{`W/"datetime'2024-01-02T03:04:05Z'"`, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"", time.Time{}},
		{`"0x8D"`, time.Time{}},
		{`W/"datetime'2024-01-02`, time.Time{}},
		{`W/"datetime'%zz'"`, time.Time{}},
		{`W/"datetime'yesterday'"`, time.Time{}},
		{`W/"datetime'2024-01-02T03%3a04%3a05.1Z'"`, time.Date(2024, 1, 2, 3, 4, 5, 100000000, time.UTC)},
		// Other escapes and forms time.Parse reads take the slow path.
		{`W/"datetime'2024-01-02T03%3A04%3A05%2B01%3A00'"`, time.Date(2024, 1, 2, 2, 4, 5, 0, time.UTC)},
		{`W/"datetime'2024-01-02T03%3A04%3A05.123456789Z'"`, time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.UTC)},
		{`W/"datetime'2024-01-02T03%3A04%3A05.1234567890123456789012345Z'"`, time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.UTC)},
		{`W/"datetime'2024-02-30T03%3A04%3A05Z'"`, time.Time{}},
		{`W/"datetime'2024-01-02T03%3a04%3A05.1234567%5A'"`, time.Date(2024, 1, 2, 3, 4, 5, 123456700, time.UTC)},
		{`W/"datetime'2024-01-02T03%3A04%3A05.1234567%2B01%3A00'"`, time.Date(2024, 1, 2, 2, 4, 5, 123456700, time.UTC)},
		{`W/"datetime'2024-01-02T03%3A04%3A05.123456789%2B01%3A00'"`, time.Date(2024, 1, 2, 2, 4, 5, 123456789, time.UTC)},
		{`W/"datetime'2024-01-02T03%3A04%3A05%'"`, time.Time{}},
		{`W/"datetime'2024-01-02T03%3A04%3A05%3'"`, time.Time{}},
	}
	for _, tt := range tests {
		if got := TimestampFromETag(tt.etag); !got.Equal(tt.want) {
			t.Errorf("TimestampFromETag(%q) = %v, want %v", tt.etag, got, tt.want)
		}
	}
}

// TestQueryUnescape: the unescaping of an ETag's time on the stack agrees
// with url.QueryUnescape wherever it answers, and leaves to it what does
// not fit or what it does not read.
func TestQueryUnescape(t *testing.T) {
	for _, s := range []string{
		"", "plain", "2024-01-02T03%3A04%3A05.1234567Z", "a+b", "%41%6a%6A", "%", "%4", "%zz", "%4g",
		strings.Repeat("x", 32), strings.Repeat("x", 33), strings.Repeat("%41", 32), strings.Repeat("%41", 33),
	} {
		var buf [32]byte
		got, ok := queryUnescape(buf[:0], s)
		want, err := url.QueryUnescape(s)
		switch {
		case ok && (err != nil || string(got) != want):
			t.Errorf("queryUnescape(%q) = %q, true; want %q (error %v)", s, got, want, err)
		case !ok && err == nil && len(want) <= len(buf):
			t.Errorf("queryUnescape(%q) = false; want %q", s, want)
		}
	}
}
