package wire

import (
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"
)

func TestRedactURLError(t *testing.T) {
	in := &url.Error{Op: "Put", URL: "https://acct.table.core.windows.net/t1(PartitionKey='p',RowKey='r')?sv=2019-02-02&sig=SECRET%2Fsig&se=2030", Err: io.EOF}
	got := RedactURLError(in)
	if strings.Contains(got.Error(), "SECRET") || strings.Contains(got.Error(), "sig=") {
		t.Errorf("redacted error still has the signature: %v", got)
	}
	if !strings.Contains(got.Error(), "/t1(PartitionKey='p',RowKey='r')") {
		t.Errorf("redacted error lost the path: %v", got)
	}
	if !errors.Is(got, io.EOF) {
		t.Errorf("errors.Is(redacted, io.EOF): got false, want true")
	}
	var ue *url.Error
	if !errors.As(got, &ue) {
		t.Errorf("errors.As(redacted, *url.Error): got false, want true")
	}
	if in.URL == ue.URL {
		t.Errorf("RedactURLError modified or kept the original: %q", ue.URL)
	}
	if plain := errors.New("x"); RedactURLError(plain) != plain {
		t.Errorf("plain error: not returned unchanged")
	}
	if RedactURLError(nil) != nil {
		t.Errorf("nil: got non-nil")
	}
}

func TestRedactText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`Put "https://a.table.core.windows.net/t?sv=1&sig=abc%2F": EOF`, `Put "https://a.table.core.windows.net/t": EOF`},
		{"GET http://127.0.0.1:1/x?sig=abc reset", "GET http://127.0.0.1:1/x reset"},
		{"token sv=1&sig=abc&se=2", "token sv=1&sig=REDACTED&se=2"},
		{"no url here", "no url here"},
	}
	for _, tc := range tests {
		if got := RedactText(tc.in); got != tc.want {
			t.Errorf("RedactText(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}
