package table_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// pair is one table opened twice: by tablekit, and with Wrap over an
// aztables client built with table.ClientOptions.
type pair struct {
	name           string
	built, wrapped *table.Table[Everything]
}

// wrapPairs opens the same new table through each kind of credential that
// Azurite accepts: shared key, and a table SAS URL.
func wrapPairs(t *testing.T) []pair {
	env := testenv.Azurite(t)
	built, _ := newRecordedTable[Everything](t, nil)
	wrap := func(c *aztables.Client) *table.Table[Everything] {
		w, err := table.Wrap[Everything](c, built.Name())
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	keyed := wrap(env.Client(t, built.Name(), table.ClientOptions(nil)))
	cred, err := sas.NewCredential(env.Account, env.Key)
	if err != nil {
		t.Fatal(err)
	}
	token, err := sas.TableSignature{Table: built.Name(), Permissions: sas.Read | sas.Add | sas.Update | sas.Delete, Expiry: time.Now().Add(time.Hour), Protocol: sas.HTTPSAndHTTP}.Sign(cred)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sas.TableURL(env.Endpoint, built.Name(), token)
	if err != nil {
		t.Fatal(err)
	}
	sasBuilt, err := openSAS[Everything](u, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := aztables.NewClientWithNoCredential(u, table.ClientOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	return []pair{{"shared key", built, keyed}, {"table SAS", sasBuilt, wrap(c)}}
}

// TestWrapMatchesBuilt: through Wrap (aztables' public API) every write
// and read gives what a table tablekit built gives, for every EDM type,
// projections and errors.
func TestWrapMatchesBuilt(t *testing.T) {
	for _, p := range wrapPairs(t) {
		t.Run(p.name, func(t *testing.T) {
			ctx := testenv.Ctx(t)
			in := sample()
			in.RowKey += p.name
			steps := []struct {
				name string
				run  func(tb *table.Table[Everything], e Everything) (any, error)
			}{
				{"add", func(tb *table.Table[Everything], e Everything) (any, error) {
					_, err := tb.Add(ctx, e)
					return nil, err
				}},
				{"add again", func(tb *table.Table[Everything], e Everything) (any, error) {
					_, err := tb.Add(ctx, e)
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
				{"delete", func(tb *table.Table[Everything], e Everything) (any, error) {
					cur, err := tb.Get(ctx, e.PartitionKey, e.RowKey, nil)
					if err != nil {
						return nil, err
					}
					if err := tb.Delete(ctx, e.PartitionKey, e.RowKey, cur.ETag); err != nil {
						return nil, err
					}
					_, err = tb.Get(ctx, e.PartitionKey, e.RowKey, nil)
					return nil, kind(err)
				}},
			}
			wrappedIn := in
			wrappedIn.RowKey += " wrapped"
			for _, st := range steps {
				got, err := st.run(p.wrapped, wrappedIn)
				want, wantErr := st.run(p.built, in)
				if !errors.Is(err, wantErr) && err != wantErr {
					t.Errorf("%s: Wrap got error %v, want %v", st.name, err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: Wrap got\n %+v\nwant %+v", st.name, got, want)
				}
			}
		})
	}
}

// bodies forwards to tablekit's tuned client and keeps the request bodies.
type bodies struct {
	next *http.Client
	mu   sync.Mutex
	sent [][]byte
}

func (b *bodies) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		b.mu.Lock()
		b.sent = append(b.sent, body)
		b.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	return b.next.Do(r)
}

func (b *bodies) last() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sent[len(b.sent)-1]
}

// TestWrapSendsAztablesEncoding: a table tablekit built sends the bytes
// tablekit encoded; through Wrap, aztables re-encodes them (sorted, a
// whole Double written as 1).
func TestWrapSendsAztablesEncoding(t *testing.T) {
	env := testenv.Azurite(t)
	tr := &bodies{next: testenv.TunedClient()}
	built, _ := newRecordedTable[Row](t, nil)
	svc := env.NewService(t, &table.Options{Transport: tr})
	mine, err := table.New[table.Entity](svc, built.Name())
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := table.Wrap[table.Entity](env.Client(t, built.Name(), table.ClientOptions(&table.Options{Transport: tr})), built.Name())
	if err != nil {
		t.Fatal(err)
	}
	e := table.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"Z": 1.0, "A": "x"}}
	for _, tt := range []struct {
		name   string
		tb     *table.Table[table.Entity]
		rowKey string
		same   bool
	}{{"built", mine, "r", true}, {"wrapped", wrapped, "w", false}} {
		e.RowKey = tt.rowKey
		want, err := tt.tb.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tt.tb.Upsert(testenv.Ctx(t), e, table.Replace); err != nil {
			t.Fatal(err)
		}
		if got := tr.last(); bytes.Equal(got, want) != tt.same {
			t.Errorf("%s: sent %s, tablekit encoded %s; want them equal: %v", tt.name, got, want, tt.same)
		}
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
	for _, s := range []error{tablekit.ErrAlreadyExists, tablekit.ErrNotFound, tablekit.ErrPreconditionFailed} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}
