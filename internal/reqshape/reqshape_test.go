package reqshape

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestRequestKinds(t *testing.T) {
	tests := []struct {
		method, path              string
		tableCreate, entityInsert bool
	}{
		{"POST", "/devstoreaccount1/Tables", true, false},
		{"POST", "/Tables", true, false},
		{"POST", "/tables/", true, false},
		{"POST", "/devstoreaccount1/mytable", false, true},
		{"POST", "/devstoreaccount1/orders?$format=json", false, true},
		{"POST", "/mytable", false, true},
		{"POST", "/devstoreaccount1/$batch", false, false},
		{"PUT", "/devstoreaccount1/mytable(PartitionKey='p',RowKey='r')", false, false},
		{"GET", "/devstoreaccount1/mytable", false, false},
		{"GET", "/devstoreaccount1/Tables", false, false},
		{"POST", "/", false, false},
		{"POST", "", false, false},
		// A POST to an entity's path is Cosmos DB's merge, never an insert.
		{"POST", "/devstoreaccount1/mytable(PartitionKey='p',RowKey='r')", false, false},
	}
	for _, tc := range tests {
		u, err := url.Parse("http://127.0.0.1" + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		req := &http.Request{Method: tc.method, URL: u, Header: http.Header{}}
		if strings.Contains(tc.path, "(PartitionKey=") {
			req.Header.Set("X-HTTP-Method", "MERGE")
		}
		if got := TableCreate(req); got != tc.tableCreate {
			t.Errorf("TableCreate(%s %s): got %v, want %v", tc.method, tc.path, got, tc.tableCreate)
		}
		if got := EntityInsert(req); got != tc.entityInsert {
			t.Errorf("EntityInsert(%s %s): got %v, want %v", tc.method, tc.path, got, tc.entityInsert)
		}
	}
	for _, req := range []*http.Request{nil, {Method: http.MethodPost}} {
		if TableCreate(req) || EntityInsert(req) {
			t.Errorf("request %v without URL: got true, want false", req)
		}
	}
}
