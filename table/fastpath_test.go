package table_test

import (
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/fastpath"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// pair is one table opened twice: with the fast path and without.
type pair struct {
	name       string
	fast, slow *table.Table[Everything]
}

// fastPairs opens the same new table through each kind of credential that
// Azurite accepts: shared key, and a table SAS URL.
func fastPairs(t *testing.T) []pair {
	env := testenv.Azurite(t)
	slow, _ := newTable[Everything](t, &table.Options{NoFastPath: true})
	open := func(o *table.Options) *table.Table[Everything] {
		svc, err := table.NewServiceWithSharedKey(env.Endpoint, env.Account, env.Key, o)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := table.New[Everything](svc, slow.Name())
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	key, keySlow := open(nil), open(&table.Options{NoFastPath: true})
	cred, err := sas.NewCredential(env.Account, env.Key)
	if err != nil {
		t.Fatal(err)
	}
	token, err := sas.TableSignature{Table: key.Name(), Permissions: sas.Read | sas.Add | sas.Update | sas.Delete, Expiry: time.Now().Add(time.Hour), Protocol: sas.HTTPSAndHTTP}.Sign(cred)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sas.TableURL(env.Endpoint, key.Name(), token)
	if err != nil {
		t.Fatal(err)
	}
	sasFast, err := table.NewFromSASURL[Everything](u, nil)
	if err != nil {
		t.Fatal(err)
	}
	sasSlow, err := table.NewFromSASURL[Everything](u, &table.Options{NoFastPath: true})
	if err != nil {
		t.Fatal(err)
	}
	return []pair{{"shared key", key, keySlow}, {"table SAS", sasFast, sasSlow}}
}

// TestFastPathMatchesFallback: every write and read gives the same result
// with and without the fast path, for every EDM type, projections and
// errors, and the fast path is really taken (its swaps are counted).
func TestFastPathMatchesFallback(t *testing.T) {
	for _, p := range fastPairs(t) {
		t.Run(p.name, func(t *testing.T) {
			var swaps atomic.Int64
			ctx := fastpath.Counting(ctxT(t), &swaps)
			in := sample()
			in.RowKey += p.name
			steps := []struct {
				name string
				run  func(tb *table.Table[Everything], e Everything) (any, error)
			}{
				{"add", func(tb *table.Table[Everything], e Everything) (any, error) {
					_, err := tb.Add(ctx, e, nil)
					return nil, err
				}},
				{"add again", func(tb *table.Table[Everything], e Everything) (any, error) {
					_, err := tb.Add(ctx, e, nil)
					return nil, kind(err)
				}},
				{"get", func(tb *table.Table[Everything], e Everything) (any, error) {
					got, err := tb.Get(ctx, e.PartitionKey, e.RowKey, nil)
					return clean(got), err
				}},
				{"get select", func(tb *table.Table[Everything], e Everything) (any, error) {
					got, err := tb.Get(ctx, e.PartitionKey, e.RowKey, &table.GetOptions{Select: []string{"Name", "Blob", "When"}})
					return clean(got), err
				}},
				{"get missing", func(tb *table.Table[Everything], e Everything) (any, error) {
					_, err := tb.Get(ctx, e.PartitionKey, "missing", nil)
					return nil, kind(err)
				}},
				{"get select missing", func(tb *table.Table[Everything], e Everything) (any, error) {
					_, err := tb.Get(ctx, e.PartitionKey, "missing", &table.GetOptions{Select: []string{"Name"}})
					return nil, kind(err)
				}},
				{"upsert merge", func(tb *table.Table[Everything], e Everything) (any, error) {
					e.Name, e.Nick = "merged", nil
					if _, err := tb.Upsert(ctx, e, table.Merge); err != nil {
						return nil, err
					}
					got, err := tb.Get(ctx, e.PartitionKey, e.RowKey, nil)
					return clean(got), err
				}},
				{"upsert replace", func(tb *table.Table[Everything], e Everything) (any, error) {
					e.Name, e.Nick = "replaced", nil
					if _, err := tb.Upsert(ctx, e, table.Replace); err != nil {
						return nil, err
					}
					got, err := tb.Get(ctx, e.PartitionKey, e.RowKey, nil)
					return clean(got), err
				}},
				{"update", func(tb *table.Table[Everything], e Everything) (any, error) {
					cur, err := tb.Get(ctx, e.PartitionKey, e.RowKey, nil)
					if err != nil {
						return nil, err
					}
					e.Small = 7
					if _, err := tb.Update(ctx, e, table.Merge, cur.ETag); err != nil {
						return nil, err
					}
					got, err := tb.Get(ctx, e.PartitionKey, e.RowKey, nil)
					return clean(got), err
				}},
				{"update stale", func(tb *table.Table[Everything], e Everything) (any, error) {
					_, err := tb.Update(ctx, e, table.Replace, `W/"datetime'2000-01-01T00%3A00%3A00Z'"`)
					return nil, kind(err)
				}},
			}
			slowIn := in
			slowIn.RowKey += " slow"
			for _, st := range steps {
				before := swaps.Load()
				gotFast, errFast := st.run(p.fast, in)
				fastSwaps := swaps.Load() - before
				gotSlow, errSlow := st.run(p.slow, slowIn)
				if slowSwaps := swaps.Load() - before - fastSwaps; slowSwaps != 0 {
					t.Errorf("%s: fallback swapped %d times, want 0", st.name, slowSwaps)
				}
				if fastSwaps == 0 && errFast == nil {
					t.Errorf("%s: fast path not taken (0 swaps)", st.name)
				}
				if !errors.Is(errFast, errSlow) && errFast != errSlow {
					t.Errorf("%s: got error %v, want %v (fallback)", st.name, errFast, errSlow)
				}
				if !reflect.DeepEqual(gotFast, gotSlow) {
					t.Errorf("%s:\n got %+v\nwant %+v (fallback)", st.name, gotFast, gotSlow)
				}
			}
		})
	}
}

// clean drops what differs between two entities by design: the RowKey
// (each path writes its own) and the Meta of the write.
func clean(e Everything) Everything {
	e.RowKey, e.Meta = "", table.Meta{}
	return e
}

// kind reduces an error to the sentinel it matches, so that errors of the
// two paths compare.
func kind(err error) error {
	for _, s := range []error{table.ErrAlreadyExists, table.ErrNotFound, table.ErrPreconditionFailed} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}
