package opdesc

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

func TestInfer(t *testing.T) {
	const entity = "/devstoreaccount1/mytable(PartitionKey='p',RowKey='r')"
	const etag = `W/"datetime'x'"`
	tests := []struct {
		method, path, ifMatch, override string
		want                            Desc
	}{
		{"POST", "/devstoreaccount1/Tables", "", "", Desc{Kind: TableCreate}},
		{"POST", "/Tables", "", "", Desc{Kind: TableCreate}},
		{"POST", "/tables/", "", "", Desc{Kind: TableCreate}},
		{"POST", "/devstoreaccount1/mytable", "", "", Desc{Kind: Insert, Entities: 1}},
		{"POST", "/mytable", "", "", Desc{Kind: Insert, Entities: 1}},
		{"POST", "/devstoreaccount1/$batch", "", "", Desc{Kind: Transaction}},
		{"PUT", entity, etag, "", Desc{Kind: Update, Entities: 1, Conditional: true}},
		{"PUT", entity, "*", "", Desc{Kind: Update, Entities: 1}},
		{"PUT", entity, "", "", Desc{Kind: Upsert, Entities: 1}},
		{"PATCH", entity, etag, "", Desc{Kind: Update, Entities: 1, Merge: true, Conditional: true}},
		{"PATCH", entity, "", "", Desc{Kind: Upsert, Entities: 1, Merge: true}},
		// Cosmos DB's merge: POST with X-HTTP-Method: MERGE, never an insert.
		{"POST", entity, etag, "MERGE", Desc{Kind: Update, Entities: 1, Merge: true, Conditional: true}},
		{"POST", entity, "", "MERGE", Desc{Kind: Upsert, Entities: 1, Merge: true}},
		{"POST", entity, etag, "", Desc{write: true, method: "post"}},
		{"DELETE", entity, etag, "", Desc{Kind: Delete, Entities: 1, Conditional: true}},
		{"DELETE", entity, "*", "", Desc{Kind: Delete, Entities: 1}},
		{"DELETE", "/devstoreaccount1/Tables('mytable')", "", "", Desc{write: true, method: "delete"}},
		{"GET", entity, "", "", Desc{Kind: Get}},
		{"GET", "/devstoreaccount1/mytable()", "", "", Desc{Kind: QueryPage}},
		{"GET", "/devstoreaccount1/Tables", "", "", Desc{method: "get"}},
		{"PUT", "/devstoreaccount1/mytable", "", "", Desc{write: true, method: "put"}},
		{"POST", "/", "", "", Desc{write: true, method: "post"}},
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
		if got := Infer(req); got.Kind != tc.want.Kind || got.Merge != tc.want.Merge || got.Conditional != tc.want.Conditional || got.IsWrite() != tc.want.IsWrite() || got.Name() != tc.want.Name() {
			t.Errorf("Infer(%s %s If-Match %q): got %+v, want %+v", tc.method, tc.path, tc.ifMatch, got, tc.want)
		}
	}
	for _, req := range []*http.Request{nil, {Method: http.MethodPost}} {
		if got := Infer(req); got.Kind != Other || got.IsWrite() {
			t.Errorf("Infer(%v) without URL: got %+v, want the zero Desc", req, got)
		}
	}
}

// The description a call sets is the one Of reads, whatever the request's
// shape says.
func TestOfReadsTheCarriedDesc(t *testing.T) {
	req, err := runtime.NewRequest(context.Background(), http.MethodPost, "http://127.0.0.1/acct/mytable")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Of(req).Kind, Insert; got != want {
		t.Errorf("Of without a Desc: got %v, want %v (inferred)", got, want)
	}
	want := Desc{Kind: Transaction, Table: "mytable", PartitionKey: "p", Entities: 3, SendOnce: true}
	req, err = runtime.NewRequest(context.Background(), http.MethodPost, "http://127.0.0.1/acct/mytable")
	if err != nil {
		t.Fatal(err)
	}
	Set(req, want)
	got := Of(req)
	if got.Kind != want.Kind || got.Table != want.Table || got.PartitionKey != want.PartitionKey || got.Entities != want.Entities || !got.SendOnce {
		t.Errorf("Of: got %+v, want %+v", got, want)
	}
}

func TestOwnCollision(t *testing.T) {
	tests := []struct {
		d      Desc
		status int
		code   string
		want   bool
	}{
		{Desc{Kind: Insert}, 409, "EntityAlreadyExists", true},
		{Desc{Kind: Insert}, 409, "TableBeingDeleted", false},
		{Desc{Kind: Insert}, 412, "", false},
		{Desc{Kind: Update, Conditional: true}, 412, "UpdateConditionNotSatisfied", true},
		{Desc{Kind: Update, Merge: true, Conditional: true}, 412, "UpdateConditionNotSatisfied", true},
		{Desc{Kind: Update}, 412, "", false},
		{Desc{Kind: Update, Conditional: true}, 404, "ResourceNotFound", false},
		{Desc{Kind: Upsert}, 409, "EntityAlreadyExists", false},
		{Desc{Kind: Delete, Conditional: true}, 412, "UpdateConditionNotSatisfied", true},
		{Desc{Kind: Delete}, 404, "ResourceNotFound", true},
		{Desc{Kind: Delete}, 404, "TableNotFound", false},
		{Desc{Kind: Transaction}, 409, "EntityAlreadyExists", true},
		{Desc{Kind: Transaction}, 412, "UpdateConditionNotSatisfied", true},
		{Desc{Kind: Transaction}, 404, "ResourceNotFound", true},
		{Desc{Kind: Transaction}, 404, "TableNotFound", false},
		{Desc{Kind: Transaction}, 400, "InvalidInput", false},
		{Desc{Kind: Get}, 404, "ResourceNotFound", false},
		{Desc{}, 409, "EntityAlreadyExists", false},
	}
	for _, tc := range tests {
		if got := tc.d.OwnCollision(tc.status, tc.code); got != tc.want {
			t.Errorf("%+v.OwnCollision(%d, %s): got %v, want %v", tc.d, tc.status, tc.code, got, tc.want)
		}
	}
}

func TestIdempotent(t *testing.T) {
	tests := []struct {
		d    Desc
		want bool
	}{
		{Desc{Kind: Get}, true},
		{Desc{Kind: QueryPage}, true},
		{Desc{Kind: Upsert}, true},
		{Desc{Kind: Update}, true},
		{Desc{Kind: Update, Conditional: true}, false},
		{Desc{Kind: Insert}, false},
		{Desc{Kind: Delete}, false},
		{Desc{Kind: Transaction}, false},
	}
	for _, tc := range tests {
		if got := tc.d.Idempotent(); got != tc.want {
			t.Errorf("%+v.Idempotent(): got %v, want %v", tc.d, got, tc.want)
		}
	}
}
