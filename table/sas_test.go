package table_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// openSAS opens the table a table SAS URL grants, through a service made
// from the URL.
func openSAS[T any](u string, o *table.Options) (*table.Table[T], error) {
	p, err := sas.Parse(u)
	if err != nil {
		return nil, err
	}
	svc, err := table.NewServiceWithSAS(u, o)
	if err != nil {
		return nil, err
	}
	return table.New[T](svc, p.Table)
}

// A table opened from a read-only table SAS URL reads and cannot write.
func TestServiceWithTableSAS(t *testing.T) {
	tbl, _ := newRecordedTable[Row](t, nil)
	ctx := testenv.Ctx(t)
	if _, err := tbl.Add(ctx, Row{"p", "r", 7}); err != nil {
		t.Fatal(err)
	}
	env := testenv.Azurite(t)
	cred, err := sas.NewCredential(env.Account, env.Key)
	if err != nil {
		t.Fatal(err)
	}
	token, err := sas.TableSignature{Table: tbl.Name(), Permissions: sas.Read, Expiry: time.Now().Add(time.Hour), Protocol: sas.HTTPSAndHTTP}.Sign(cred)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sas.TableURL(env.Endpoint, tbl.Name(), token)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := openSAS[Row](u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ro.Name() != tbl.Name() {
		t.Errorf("Name = %q, want %q", ro.Name(), tbl.Name())
	}
	got, err := ro.Get(ctx, "p", "r", nil)
	if err != nil || got.V != 7 {
		t.Fatalf("Get through SAS = %+v, %v", got, err)
	}
	_, err = ro.Upsert(ctx, Row{"p", "r", 8}, table.Merge)
	if !errors.Is(err, tablekit.ErrForbidden) {
		t.Fatalf("write through a read-only SAS: err = %v, want tablekit.ErrForbidden", err)
	}
	sig := token.Get("sig")
	if strings.Contains(err.Error(), sig) || strings.Contains(err.Error(), "sig=") {
		t.Errorf("error leaks the signature: %v", err)
	}
	for _, bad := range []string{"not a url", "http://127.0.0.1:1/", "http://127.0.0.1:1/a-b?sig=x", "http://example.com/acct/tbl?sig=x"} {
		if _, err := openSAS[Row](bad, nil); err == nil {
			t.Errorf("openSAS(%q) = nil error", bad)
		}
	}
}

// A service made from an account SAS (a URL or a connection string) sends
// its data requests on tablekit's pipeline with the SAS in every URL, and
// its management calls through aztables: both are accepted.
func TestAccountSASService(t *testing.T) {
	env := testenv.Azurite(t)
	cred, err := sas.NewCredential(env.Account, env.Key)
	if err != nil {
		t.Fatal(err)
	}
	all := sas.AccountRead | sas.AccountWrite | sas.AccountDelete | sas.AccountList | sas.AccountAdd | sas.AccountCreate | sas.AccountUpdate
	token, err := sas.AccountSignature{Permissions: all, ResourceTypes: sas.ResourceService | sas.ResourceContainer | sas.ResourceObject,
		Expiry: time.Now().Add(time.Hour), Protocol: sas.HTTPSAndHTTP}.Sign(cred)
	if err != nil {
		t.Fatal(err)
	}
	fromURL, err := table.NewServiceWithSAS(env.Endpoint+"/?"+token.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fromString, err := table.NewService("TableEndpoint="+env.Endpoint+";SharedAccessSignature="+token.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, svc := range map[string]*table.Service{"URL": fromURL, "connection string": fromString} {
		t.Run(name, func(t *testing.T) {
			ctx := testenv.Ctx(t)
			tbl := testenv.NewTable[Row](t, svc)
			in := Row{"O'Brien ü", "r", 7}
			if _, err := tbl.Add(ctx, in); err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.Upsert(ctx, Row{"O'Brien ü", "r2", 8}, table.Merge); err != nil {
				t.Fatal(err)
			}
			got, err := tbl.Get(ctx, in.PartitionKey, in.RowKey, nil)
			if err != nil || got.V != 7 {
				t.Fatalf("Get = %+v, %v", got, err)
			}
			if err := tbl.Delete(ctx, in.PartitionKey, "r2", table.AnyETag); err != nil {
				t.Fatal(err)
			}
			var names []string
			for n, err := range svc.Tables(ctx, &table.ListTablesOptions{Prefix: tbl.Name()}) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, n)
			}
			if len(names) != 1 {
				t.Errorf("Tables = %v, want %s", names, tbl.Name())
			}
		})
	}
}

// A transport error never shows the SAS signature, with or without the
// retry policy (which strips it too), on every kind of data request.
func TestSASNotInTransportErrors(t *testing.T) {
	for _, o := range []*table.Options{{Retry: &retry.Policy{MaxAttempts: 1}}, {Retry: &retry.Policy{MaxAttempts: 2, InitialInterval: time.Millisecond}}} {
		svc, err := table.NewServiceWithSAS("http://127.0.0.1:1/acct?sv=2019-02-02&sig=SECRETSIG", o)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := table.New[Row](svc, "orders")
		if err != nil {
			t.Fatal(err)
		}
		ctx := testenv.Ctx(t)
		calls := map[string]func() error{
			"get":    func() error { _, err := tbl.Get(ctx, "p", "r", nil); return err },
			"add":    func() error { _, err := tbl.Add(ctx, Row{"p", "r", 1}); return err },
			"upsert": func() error { _, err := tbl.Upsert(ctx, Row{"p", "r", 1}, table.Merge); return err },
			"delete": func() error { return tbl.Delete(ctx, "p", "r", table.AnyETag) },
			"query": func() error {
				_, err := query.Collect(query.New(tbl).All(ctx))
				return err
			},
			"transaction": func() error {
				_, err := batch.New(tbl).Upsert(Row{"p", "r", 1}, table.Replace).Submit(ctx)
				return err
			},
		}
		for name, call := range calls {
			if err := call(); err == nil || strings.Contains(err.Error(), "SECRETSIG") {
				t.Errorf("%s (retry off: %v): error %v, want one without the signature", name, o.Retry.MaxAttempts == 1, err)
			}
		}
	}
}
