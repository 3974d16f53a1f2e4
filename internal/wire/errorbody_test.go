package wire

import (
	"strings"
	"testing"
)

func TestErrorBody(t *testing.T) {
	tests := []struct{ body, code, msg string }{
		{`{"odata.error":{"code":"X","message":{"lang":"en-US","value":"m"}}}`, "X", "m"},
		{` {"error":{"code":"Y","message":"plain"}} `, "Y", "plain"},
		{`{"error":{"code":"Z","message":{"value":"nested"}}}`, "Z", "nested"},
		{`not json`, "", ""},
		{``, "", ""},
		{`{}`, "", ""},
		{`{"odata.error":{"code":1}}`, "", ""},
	}
	for _, tt := range tests {
		code, msg := ErrorBody([]byte(tt.body))
		if code != tt.code || msg != tt.msg {
			t.Errorf("ErrorBody(%s) = %q, %q; want %q, %q", tt.body, code, msg, tt.code, tt.msg)
		}
	}
}

func TestFirstLine(t *testing.T) {
	long := strings.Repeat("x", MaxMessage)
	tests := []struct{ in, want string }{
		{"", ""},
		{" The entity exists.\nRequestId:1\nTime:2", "The entity exists."},
		{"line\r\nnext", "line"},
		{long, long},
		{long + "y", long + "..."},
		{strings.Repeat("x", MaxMessage-1) + "üz", strings.Repeat("x", MaxMessage-1) + "..."},
	}
	for _, tt := range tests {
		if got := FirstLine(tt.in); got != tt.want {
			t.Errorf("FirstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
