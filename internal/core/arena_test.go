package core

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/txwire"
)

type arenaCase struct {
	name    string
	op      txwire.Op
	entity  string
	wantErr bool
}

// TestTxArenaParts: every part an arena holds is byte for byte what
// AppendPart writes alone, stays so while later parts fill the block and
// the next ones, cannot be appended to over its neighbour, and a part
// longer than PartRoom (a key whose URL outgrows the headroom) or a
// refused one leaves the arena usable; with blocks of doubling size and
// with blocks sized for the parts left.
func TestTxArenaParts(t *testing.T) {
	s := txwire.NewSizer("http://127.0.0.1:10002/devstoreaccount1", "arena", false)
	long := strings.Repeat("k", 900) // a request line beyond partHeadroom
	cases := []arenaCase{
		{"small", txwire.Op{Type: aztables.TransactionTypeInsertReplace, PartitionKey: "p", RowKey: "1"}, `{"PartitionKey":"p","RowKey":"1"}`, false},
		{"entity larger than a block", txwire.Op{Type: aztables.TransactionTypeInsertMerge, PartitionKey: "p", RowKey: "2"}, `{"PartitionKey":"p","RowKey":"2","V":"` + strings.Repeat("v", 5000) + `"}`, false},
		{"long keys", txwire.Op{Type: aztables.TransactionTypeUpdateReplace, PartitionKey: "p", RowKey: long}, `{"PartitionKey":"p","RowKey":"` + long + `"}`, false},
		{"delete", txwire.Op{Type: aztables.TransactionTypeDelete, PartitionKey: "p", RowKey: "3"}, "", false},
		{"refused", txwire.Op{Type: aztables.TransactionTypeUpdateReplace, RowKey: "4"}, `{"RowKey":"4"}`, true},
		{"after the refused", txwire.Op{Type: aztables.TransactionTypeAdd, PartitionKey: "p", RowKey: "5"}, `{"PartitionKey":"p","RowKey":"5"}`, false},
	}
	for _, a := range []*TxArena{NewTxArena(2<<10, 4<<10, 0), NewTxArena(2<<10, 64<<10, 8*len(cases))} {
		checkArena(t, a, s, cases)
	}
}

func checkArena(t *testing.T, a *TxArena, s *txwire.Sizer, cases []arenaCase) {
	t.Helper()
	var parts, wants [][]byte
	for round := range 8 { // enough parts to fill several blocks
		for _, c := range cases {
			op := c.op
			op.EntityLen = len(c.entity)
			var entity []byte
			if c.entity != "" {
				entity = []byte(c.entity)
			}
			want, wantErr := s.AppendPart(nil, op, entity)
			got, _, err := a.put(s, op, entity)
			if (err != nil) != c.wantErr || (wantErr != nil) != c.wantErr {
				t.Fatalf("round %d, %s: got error %v (alone: %v), want an error: %v", round, c.name, err, wantErr, c.wantErr)
			}
			if err != nil {
				continue
			}
			if cap(got) != len(got) {
				t.Errorf("round %d, %s: part of %d bytes has capacity %d, want none beyond it", round, c.name, len(got), cap(got))
			}
			parts, wants = append(parts, got), append(wants, want)
		}
	}
	for i := range parts {
		if !bytes.Equal(parts[i], wants[i]) {
			t.Errorf("part %d after every put: got %q, want %q", i, parts[i], wants[i])
		}
	}
}

// TestTxArenaReuse: a reusing arena writes later parts into a block only
// once every part in it was released, so a part not yet released keeps
// its bytes whatever is released and written around it (parts released
// from other goroutines, as a bulk write's workers do); and released
// blocks are written again.
func TestTxArenaReuse(t *testing.T) {
	s := txwire.NewSizer("http://127.0.0.1:10002/devstoreaccount1", "arena", false)
	a := NewReusingTxArena(2<<10, 64)
	type held struct {
		part, want []byte
		blk        *txBlock
	}
	var live []held
	seen := map[*txBlock]int{} // the times each block was taken
	release := make(chan held)
	done := make(chan struct{})
	go func() {
		for h := range release {
			TxPart{part: h.part, blk: h.blk}.Release()
		}
		close(done)
	}()
	for i := range 600 {
		op := txwire.Op{Type: aztables.TransactionTypeInsertReplace, PartitionKey: "p", RowKey: fmt.Sprint(i)}
		entity := []byte(fmt.Sprintf(`{"PartitionKey":"p","RowKey":"%d","V":"%s"}`, i, strings.Repeat(string(rune('a'+i%26)), 50+i%200)))
		op.EntityLen = len(entity)
		want, _ := s.AppendPart(nil, op, entity)
		got, blk, err := a.put(s, op, entity)
		if err != nil {
			t.Fatal(err)
		}
		if blk == nil {
			t.Fatalf("part %d: no block", i)
		}
		if len(live) == 0 || live[len(live)-1].blk != blk {
			seen[blk]++
		}
		live = append(live, held{got, want, blk})
		// Release about two parts in three, in an order unlike the
		// blocks': some blocks stay held by one part for long.
		if i%3 != 0 && len(live) > 5 {
			j := (i * 7) % len(live)
			release <- live[j]
			live = append(live[:j], live[j+1:]...)
		}
		for k, h := range live {
			if !bytes.Equal(h.part, h.want) {
				t.Fatalf("after part %d: held part %d is %q, want %q", i, k, h.part, h.want)
			}
		}
	}
	close(release)
	<-done
	reused := 0
	for _, n := range seen {
		if n > 1 {
			reused++
		}
	}
	if reused == 0 {
		t.Errorf("%d blocks taken, none of them again; want released blocks reused", len(seen))
	}
}
