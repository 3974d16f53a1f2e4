package sas

import (
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/tablekit/tablekit"
)

func sprintAll(v any) string { return fmt.Sprintf("%v %+v %#v %s", v, v, v, v) }

func TestTableURL(t *testing.T) {
	https := url.Values{"sig": {"s"}, "spr": {"https"}}
	both := url.Values{"sig": {"s"}, "spr": {"https,http"}}
	tests := []struct {
		name, endpoint, table string
		token                 url.Values
		want                  string
	}{
		{"azure", "https://acct.table.core.windows.net", "orders", https, "https://acct.table.core.windows.net/orders?sig=s&spr=https"},
		{"trailing slash", "https://acct.table.core.windows.net/", "orders", https, "https://acct.table.core.windows.net/orders?sig=s&spr=https"},
		{"azurite path", "http://127.0.0.1:10002/devstoreaccount1", "orders", both, "http://127.0.0.1:10002/devstoreaccount1/orders?sig=s&spr=https%2Chttp"},
		{"azurite path with slash", "http://127.0.0.1:10002/devstoreaccount1/", "orders", both, "http://127.0.0.1:10002/devstoreaccount1/orders?sig=s&spr=https%2Chttp"},
		{"no spr allows http", "http://127.0.0.1:10002/devstoreaccount1", "orders", url.Values{"sig": {"s"}}, "http://127.0.0.1:10002/devstoreaccount1/orders?sig=s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TableURL(tt.endpoint, tt.table, tt.token)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}

	bad := []struct {
		name, endpoint, table string
		token                 url.Values
		wantField             string
	}{
		{"relative", "acct.table.core.windows.net", "orders", https, "endpoint"},
		{"ftp", "ftp://host", "orders", https, "endpoint"},
		{"query on endpoint", "https://host/?a=b", "orders", https, "endpoint"},
		{"bad table", "https://host", "or/ders", https, "table"},
		{"unsigned", "https://host", "orders", url.Values{"sv": {"x"}}, "token"},
		{"https-only token over http", "http://127.0.0.1:10002/devstoreaccount1", "orders", https, "endpoint"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := TableURL(tt.endpoint, tt.table, tt.token)
			var ve *tablekit.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, tablekit.ErrInvalid) {
				t.Fatalf("got %v, want *tablekit.ValidationError", err)
			}
			if ve.Field != tt.wantField {
				t.Errorf("field: got %q, want %q", ve.Field, tt.wantField)
			}
		})
	}
}
