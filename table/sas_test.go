package table_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// A table opened from a read-only SAS URL reads and cannot write.
func TestNewFromSASURL(t *testing.T) {
	tbl, _ := newTable[Row](t, nil)
	ctx := ctxT(t)
	if _, err := tbl.Add(ctx, Row{"p", "r", 7}, nil); err != nil {
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
	ro, err := table.NewFromSASURL[Row](u, nil)
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
	if !errors.Is(err, table.ErrForbidden) || !sas.IsAuthorizationError(err) {
		t.Fatalf("write through a read-only SAS: err = %v, want ErrForbidden", err)
	}
	sig := token.Get("sig")
	if strings.Contains(err.Error(), sig) || strings.Contains(err.Error(), "sig=") {
		t.Errorf("error leaks the signature: %v", err)
	}
	for _, bad := range []string{"not a url", "http://127.0.0.1:1/", "http://127.0.0.1:1/a-b?sig=x", "http://example.com/acct/tbl?sig=x"} {
		if _, err := table.NewFromSASURL[Row](bad, nil); err == nil {
			t.Errorf("NewFromSASURL(%q) = nil error", bad)
		}
	}
}
