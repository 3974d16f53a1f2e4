package reqshape

import (
	"net/http"
	"net/url"
	"testing"
)

func TestConditionalWrites(t *testing.T) {
	const entity = "/devstoreaccount1/mytable(PartitionKey='p',RowKey='r')"
	tests := []struct {
		method, path, ifMatch, override string
		update, delete                  bool
	}{
		{"PUT", entity, `W/"datetime'x'"`, "", true, false},
		{"PATCH", entity, `W/"datetime'x'"`, "", true, false},
		// Cosmos DB's merge: POST with X-HTTP-Method: MERGE.
		{"POST", entity, `W/"datetime'x'"`, "MERGE", true, false},
		{"POST", entity, "*", "MERGE", false, false},
		{"POST", entity, "", "MERGE", false, false}, // an upsert
		{"POST", entity, `W/"datetime'x'"`, "", false, false},
		{"PUT", entity, "", "", false, false},    // upsert
		{"PATCH", entity, "*", "", false, false}, // unconditional
		{"DELETE", entity, `W/"datetime'x'"`, "", false, true},
		{"DELETE", entity, "*", "", false, true},
		{"DELETE", "/devstoreaccount1/Tables('mytable')", "", "", false, false},
		{"DELETE", "/devstoreaccount1/mytable", "", "", false, false},
		{"GET", entity, "", "", false, false},
		{"POST", "/devstoreaccount1/mytable", "", "", false, false},
	}
	for _, tc := range tests {
		u, err := url.Parse("http://127.0.0.1" + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		req := &http.Request{Method: tc.method, URL: u, Header: http.Header{}}
		if tc.ifMatch != "" {
			req.Header.Set("If-Match", tc.ifMatch)
		}
		if tc.override != "" {
			req.Header.Set("X-HTTP-Method", tc.override)
		}
		if got := EntityUpdate(req); got != tc.update {
			t.Errorf("EntityUpdate(%s %s If-Match %q): got %v, want %v", tc.method, tc.path, tc.ifMatch, got, tc.update)
		}
		if got := EntityDelete(req); got != tc.delete {
			t.Errorf("EntityDelete(%s %s): got %v, want %v", tc.method, tc.path, got, tc.delete)
		}
	}
	if EntityUpdate(nil) || EntityDelete(nil) {
		t.Error("nil request: got true, want false")
	}
}
