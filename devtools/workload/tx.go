package workload

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/table"
)

// TxOps is the number of operations of a benchmarked transaction: the
// service's maximum.
const TxOps = batch.MaxOps

// txItems are TxOps items moved to one partition.
func txItems() []Item {
	its := Items(0, TxOps)
	for i := range its {
		its[i].PartitionKey = PartitionKey(0)
	}
	return its
}

// TxTyped submits a 100-operation transaction of typed upserts.
func TxTyped(b *testing.B) {
	its := txItems()
	t := TypedTable(&Service{})
	ctx := context.Background()
	run(b, TxOps, func(int) error {
		tx := batch.New(t)
		for _, it := range its {
			tx.Upsert(it, table.Replace)
		}
		_, err := tx.Submit(ctx)
		return err
	})
}

// TxPrebuilt submits the same upserts with aztables' SubmitTransaction,
// their JSON built beforehand: the least a hand-written transaction costs.
func TxPrebuilt(b *testing.B) {
	its := txItems()
	t := TypedTable(&Service{})
	actions := make([]aztables.TransactionAction, len(its))
	for i, it := range its {
		body, err := t.Marshal(it)
		if err != nil {
			b.Fatal(err)
		}
		actions[i] = aztables.TransactionAction{ActionType: aztables.TransactionTypeInsertReplace, Entity: body}
	}
	c := PlainClient(&Service{})
	ctx := context.Background()
	run(b, TxOps, func(int) error {
		_, err := c.SubmitTransaction(ctx, actions, nil)
		return err
	})
}
