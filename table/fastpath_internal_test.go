package table

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// TestInsertsSkipAddEntity: a table whose pipeline tablekit built inserts
// without AddEntity (so a change of aztables' layout that hides the
// pipeline fails here, not silently); any other table uses AddEntity.
func TestInsertsSkipAddEntity(t *testing.T) {
	const key = "a2V5"
	open := func(o *Options) *Table[struct{ PartitionKey, RowKey string }] {
		s, err := NewServiceWithSharedKey("http://127.0.0.1:1/acct", "acct", key, o)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := New[struct{ PartitionKey, RowKey string }](s, "tab1")
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	sasTable, err := NewFromSASURL[struct{ PartitionKey, RowKey string }]("http://127.0.0.1:1/acct/tab1?sv=2019-02-02&sig=x", nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := aztables.NewClientWithNoCredential("http://127.0.0.1:1/acct/tab1?sig=x", nil)
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := Wrap[struct{ PartitionKey, RowKey string }](plain, "tab1")
	if err != nil {
		t.Fatal(err)
	}
	// table.As shares the source's pipeline, so also its way of inserting.
	as := func(tb *Table[struct{ PartitionKey, RowKey string }]) *Table[struct{ PartitionKey, RowKey string }] {
		e, err := As[Entity](tb)
		if err != nil {
			t.Fatal(err)
		}
		back, err := As[struct{ PartitionKey, RowKey string }](e)
		if err != nil {
			t.Fatal(err)
		}
		return back
	}
	tests := []struct {
		name string
		tb   *Table[struct{ PartitionKey, RowKey string }]
		want bool
	}{
		{"As of shared key", as(open(nil)), true},
		{"As of wrapped", as(wrapped), false},
		{"shared key", open(nil), true},
		{"table SAS URL", sasTable, true},
		{"no fast path", open(&Options{NoFastPath: true}), false},
		{"wrapped", wrapped, false},
	}
	for _, tc := range tests {
		if got := tc.tb.ins != nil; got != tc.want {
			t.Errorf("%s: inserts without AddEntity %v, want %v", tc.name, got, tc.want)
		}
	}
}
