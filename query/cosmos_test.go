package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/cosmos"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// row is the entity of the Cosmos DB tests (item has a property named ID,
// which Cosmos DB reserves).
type row struct {
	PartitionKey, RowKey string
	N                    int32
}

// cosmosRows stores n rows over 4 partitions in a new table of the
// emulator and opens the same table through a Cosmos DB stand-in in front
// of it. The stand-in returns query results in its own order, paged by
// $top; o picks the order (nil: Seeded).
func cosmosRows(t *testing.T, n int, o *cosmos.Options) (*table.Table[row], *table.Table[row], *cosmos.Server) {
	t.Helper()
	env := testenv.Azurite(t)
	cs := env.Cosmos(t, o)
	direct := testenv.NewTable[row](t, env.NewService(t, nil))
	rows := make([]row, n)
	for i := range rows {
		rows[i] = row{PartitionKey: fmt.Sprintf("p%d", i%4), RowKey: fmt.Sprintf("r%03d", i), N: int32(i)}
	}
	load(t, direct, rows)
	tbl, err := table.New[row](env.CosmosService(t, cs, nil), direct.Name())
	if err != nil {
		t.Fatal(err)
	}
	return tbl, direct, cs
}

// exactlyOnce fails unless got holds rows 0 to n-1, each once.
func exactlyOnce(t *testing.T, what string, got []row, n int) {
	t.Helper()
	seen := map[int32]int{}
	for _, r := range got {
		seen[r.N]++
	}
	for i := range n {
		if seen[int32(i)] != 1 {
			t.Errorf("%s: row %d returned %d times, want once (%d rows in all)", what, i, seen[int32(i)], len(got))
			return
		}
	}
	if len(got) != n {
		t.Errorf("%s: %d rows, want %d", what, len(got), n)
	}
}

// resumeAll returns every row from token on; "" means nothing is left
// (Token's answer at the end), not the beginning.
func resumeAll(ctx context.Context, q Query[row], token string) ([]row, error) {
	if token == "" {
		return nil, nil
	}
	c, err := q.Resume(token)
	if err != nil {
		return nil, err
	}
	return Collect(c.All(ctx))
}

// take iterates seq, stopping after k rows (k < 0: to the end).
func take(seq func(func(row, error) bool), k int) ([]row, error) {
	var out []row
	var err error
	if k == 0 {
		return nil, nil
	}
	for r, e := range seq {
		if e != nil {
			err = e
			break
		}
		out = append(out, r)
		if len(out) == k {
			break
		}
	}
	return out, err
}

// TestCosmosAllUnordered: a query through a backend that does not sort its
// results returns every entity once; a page is not filtered by key (it
// returned 10 of 20 when it was).
func TestCosmosAllUnordered(t *testing.T) {
	tbl, _, cs := cosmosRows(t, 20, nil)
	got, err := Collect(New(tbl).PageSize(6).All(testenv.Ctx(t)))
	if err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "All", got, 20)
	if !slices.IsSortedFunc(got, func(a, b row) int {
		return compareKeys(keyPair{a.PartitionKey, a.RowKey}, keyPair{b.PartitionKey, b.RowKey})
	}) {
		t.Logf("the stand-in returned the rows out of key order, as intended")
	} else {
		t.Errorf("the rows came in key order: the test does not test an unordered backend")
	}
	if cs.Stats().QueryPages < 4 {
		t.Errorf("the stand-in served %d pages, want 4", cs.Stats().QueryPages)
	}
}

// TestCosmosResumeEveryPosition breaks a query after every number of rows
// of several unordered pages, takes the token and resumes it in a new
// cursor (and a new process would do the same), with and without a
// Limit: every row comes exactly once. Pages' tokens, at page boundaries,
// too.
func TestCosmosResumeEveryPosition(t *testing.T) {
	const n = 23 // pages of 5: four full pages and a short one
	tbl, _, _ := cosmosRows(t, n, nil)
	q := New(tbl).PageSize(5)
	ctx := testenv.Ctx(t)
	for k := 0; k <= n; k++ {
		c, err := q.Resume("")
		if err != nil {
			t.Fatal(err)
		}
		first, err := take(c.All(ctx), k)
		if err != nil {
			t.Fatalf("break after %d: %v", k, err)
		}
		more, err := resumeAll(ctx, q, c.Token())
		if err != nil {
			t.Fatalf("break after %d: the resumed run: %v", k, err)
		}
		exactlyOnce(t, fmt.Sprintf("break after %d", k), append(first, more...), n)
		// The same cursor, iterated again, continues too.
		again, err := Collect(c.All(ctx))
		if err != nil {
			t.Fatalf("break after %d: iterating the cursor again: %v", k, err)
		}
		exactlyOnce(t, fmt.Sprintf("break after %d, the same cursor", k), append(first, again...), n)
	}
	// A Limit resumed over and over: two rows a run.
	var all []row
	tok := ""
	for runs := 0; ; runs++ {
		c, err := q.Limit(2).Resume(tok)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Collect(c.All(ctx))
		if err != nil {
			t.Fatalf("run %d with Limit(2): %v", runs, err)
		}
		all = append(all, got...)
		if tok = c.Token(); tok == "" || runs > n {
			break
		}
	}
	exactlyOnce(t, "Limit(2) runs", all, n)
	// Pages: the token of every page resumes after it.
	var paged []row
	tok = ""
	for {
		c, err := q.Resume(tok)
		if err != nil {
			t.Fatal(err)
		}
		var page Page[row]
		for p, err := range c.Pages(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			page = p
			break
		}
		paged = append(paged, page.Entities...)
		if tok = page.Token; tok == "" {
			break
		}
	}
	exactlyOnce(t, "page by page", paged, n)
}

// TestCosmosResumeChangingOrder: when the backend orders a page differently
// each time it is read, a token taken in the middle of a page is refused
// with tablekit.ErrPositionLost, or, if its page happens to start as before, still
// exact; at page boundaries it is exact. Never a row skipped or repeated.
func TestCosmosResumeChangingOrder(t *testing.T) {
	const n = 23
	tbl, _, _ := cosmosRows(t, n, &cosmos.Options{Order: cosmos.Changing, Seed: 7})
	q := New(tbl).PageSize(5)
	ctx := testenv.Ctx(t)
	refused := 0
	for k := 0; k <= n; k++ {
		c, err := q.Resume("")
		if err != nil {
			t.Fatal(err)
		}
		first, err := take(c.All(ctx), k)
		if err != nil {
			t.Fatalf("break after %d: %v", k, err)
		}
		more, err := resumeAll(ctx, q, c.Token())
		switch {
		case errors.Is(err, tablekit.ErrPositionLost) && len(more) == 0:
			refused++
			if k%5 == 0 && k != n {
				t.Errorf("break after %d, a page boundary: refused (%v), want exact", k, err)
			}
		case err != nil:
			t.Fatalf("break after %d: %v", k, err)
		default:
			exactlyOnce(t, fmt.Sprintf("break after %d", k), append(first, more...), n)
		}
	}
	if refused == 0 {
		t.Errorf("no token was refused: the order did not change between reads, so the test tests nothing")
	}
	t.Logf("%d of %d positions refused, the others exact", refused, n+1)
}

// TestCosmosKeySkipTokenRefused: a token that skips by key (made on Table
// Storage, in the middle of a page) is refused on Cosmos DB before any
// request; the same table's token resumes on Table Storage.
func TestCosmosKeySkipTokenRefused(t *testing.T) {
	tbl, direct, cs := cosmosRows(t, 12, nil)
	c, err := New(direct).PageSize(5).Resume("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := take(c.All(testenv.Ctx(t)), 3); err != nil {
		t.Fatal(err)
	}
	tok := c.Token()
	cs.Reset()
	_, err = New(tbl).PageSize(5).Resume(tok)
	if !errors.Is(err, tablekit.ErrPositionLost) || strings.Contains(err.Error(), "segment") {
		t.Errorf("Resume on Cosmos DB: got %v, want tablekit.ErrPositionLost naming no segment", err)
	}
	if n := cs.Stats().Requests; n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
	if _, err := New(direct).PageSize(5).Resume(tok); err != nil {
		t.Errorf("Resume on Table Storage: %v", err)
	}
}

// TestCosmosParallelResume: a parallel run over unordered segments, broken
// after every number of rows and resumed from its token, returns every row
// once; Ordered, which needs key order, is refused; with a changing order
// a resumed token is refused or exact.
func TestCosmosParallelResume(t *testing.T) {
	const n = 30
	segs := PartitionSegments("p0", "p1", "p2", "p3")
	for _, order := range []cosmos.Order{cosmos.Seeded, cosmos.Changing} {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			tbl, _, _ := cosmosRows(t, n, &cosmos.Options{Order: order, Seed: 3})
			q := New(tbl).PageSize(3)
			ctx := testenv.Ctx(t)
			if _, err := q.Parallel(segs, &ParallelOptions{Ordered: true}); !errors.Is(err, tablekit.ErrUnsupported) {
				t.Errorf("Ordered: got %v, want tablekit.ErrUnsupported", err)
			}
			refused := 0
			for k := 0; k <= n; k += 2 {
				c, err := q.Parallel(segs, &ParallelOptions{Parallelism: 2})
				if err != nil {
					t.Fatal(err)
				}
				first, err := take(c.All(ctx), k)
				if err != nil {
					t.Fatalf("break after %d: %v", k, err)
				}
				var more []row
				if tok := c.Token(); tok != "" {
					rest, perr := q.ResumeParallel(tok, segs, &ParallelOptions{Parallelism: 2})
					if perr != nil {
						t.Fatalf("break after %d: Parallel: %v", k, perr)
					}
					more, err = Collect(rest.All(ctx))
				}
				switch {
				case order == cosmos.Changing && errors.Is(err, tablekit.ErrPositionLost) && strings.Contains(err.Error(), ": segment "):
					refused++
				case err != nil:
					t.Fatalf("break after %d: %v", k, err)
				default:
					exactlyOnce(t, fmt.Sprintf("break after %d", k), append(first, more...), n)
				}
			}
			if order == cosmos.Changing && refused == 0 {
				t.Errorf("no token was refused with a changing order: the test tests nothing")
			}
		})
	}
}

// TestCosmosWrapResume: a table from table.Wrap cannot tell its backend,
// so its positions never rely on key order: over a Cosmos DB client it
// resumes exactly too.
func TestCosmosWrapResume(t *testing.T) {
	const n = 13
	tbl, _, cs := cosmosRows(t, n, nil)
	env := testenv.Azurite(t)
	c, err := aztables.NewClientWithSharedKey(cs.Endpoint()+"/"+tbl.Name(), env.Credential(t), table.ClientOptions(&table.Options{Transport: cs.Client()}))
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := table.Wrap[row](c, tbl.Name())
	if err != nil {
		t.Fatal(err)
	}
	q := New(wrapped).PageSize(4)
	ctx := testenv.Ctx(t)
	for k := 0; k <= n; k++ {
		cur, err := q.Resume("")
		if err != nil {
			t.Fatal(err)
		}
		first, err := take(cur.All(ctx), k)
		if err != nil {
			t.Fatal(err)
		}
		more, err := resumeAll(ctx, q, cur.Token())
		if err != nil {
			t.Fatalf("break after %d: %v", k, err)
		}
		exactlyOnce(t, fmt.Sprintf("Wrap, break after %d", k), append(first, more...), n)
	}
}
