package sas_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/sas"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

func credential(t *testing.T, env *testenv.Env) *sas.Credential {
	t.Helper()
	c, err := sas.NewCredential(env.Account, env.Key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sasClient signs s and returns a client that uses only the token.
func sasClient(t *testing.T, env *testenv.Env, table string, token url.Values) *aztables.Client {
	t.Helper()
	u, err := sas.TableURL(env.Endpoint, table, token)
	if err != nil {
		t.Fatalf("TableURL: %v", err)
	}
	c, err := aztables.NewClientWithNoCredential(u, nil)
	if err != nil {
		t.Fatalf("NewClientWithNoCredential: %v", err)
	}
	return c
}

func sign(t *testing.T, env *testenv.Env, s sas.TableSignature) url.Values {
	t.Helper()
	v, err := s.Sign(credential(t, env))
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return v
}

func entity(pk, rk string) []byte {
	return fmt.Appendf(nil, `{"PartitionKey":%q,"RowKey":%q,"N":1}`, pk, rk)
}

func mustAdd(t *testing.T, c *aztables.Client, pk, rk string) {
	t.Helper()
	if _, err := c.AddEntity(testenv.Ctx(t), entity(pk, rk), nil); err != nil {
		t.Fatalf("seed %s/%s: %v", pk, rk, err)
	}
}

func errorCode(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return ""
}

// op is one table operation that needs exactly one table SAS permission.
type op struct {
	name string
	perm sas.Permissions
	run  func(ctx context.Context, c *aztables.Client, pk, rk string) error
}

var ops = []op{
	{"read", sas.Read, func(ctx context.Context, c *aztables.Client, pk, _ string) error {
		_, err := c.GetEntity(ctx, pk, "seed", nil)
		return err
	}},
	{"query", sas.Read, func(ctx context.Context, c *aztables.Client, pk, _ string) error {
		f := fmt.Sprintf("PartitionKey eq '%s'", pk)
		_, err := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &f}).NextPage(ctx)
		return err
	}},
	{"add", sas.Add, func(ctx context.Context, c *aztables.Client, pk, rk string) error {
		_, err := c.AddEntity(ctx, entity(pk, "added-"+rk), nil)
		return err
	}},
	{"update", sas.Update, func(ctx context.Context, c *aztables.Client, pk, _ string) error {
		_, err := c.UpdateEntity(ctx, entity(pk, "seed"), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge})
		return err
	}},
	{"delete", sas.Delete, func(ctx context.Context, c *aztables.Client, pk, rk string) error {
		_, err := c.DeleteEntity(ctx, pk, "victim-"+rk, nil)
		return err
	}},
}

// checkAllowed runs every operation through c and checks that exactly the
// ones in perms succeed, and the rest fail with a permission mismatch.
func checkAllowed(t *testing.T, admin, c *aztables.Client, pk string, perms sas.Permissions) {
	t.Helper()
	ctx := testenv.Ctx(t)
	for i, o := range ops {
		rk := fmt.Sprint(i)
		mustAdd(t, admin, pk, "victim-"+rk)
		err := o.run(ctx, c, pk, rk)
		if perms&o.perm != 0 {
			if err != nil {
				t.Errorf("%s with %q: got %v, want success", o.name, perms, err)
			}
			continue
		}
		if !forbidden(err) || errorCode(err) != "AuthorizationPermissionMismatch" {
			t.Errorf("%s with %q: got %v (code %q), want 403 AuthorizationPermissionMismatch", o.name, perms, err, errorCode(err))
		}
	}
}

// Every permission set, alone and combined with a key range, an IP or IP
// range containing 127.0.0.1 and a stored policy, is accepted for exactly
// what it allows.
func TestTableSASPermissionMatrix(t *testing.T) {
	env := testenv.Azurite(t)
	name, admin := env.NewTable(t, nil)
	loopback := sas.IPRange{Start: netip.MustParseAddr("127.0.0.1")}
	loopRange := sas.IPRange{Start: netip.MustParseAddr("127.0.0.0"), End: netip.MustParseAddr("127.255.255.255")}

	n := 0
	for perms := sas.Permissions(1); perms <= sas.Read|sas.Add|sas.Update|sas.Delete; perms++ {
		for _, rangeOn := range []bool{false, true} {
			for ipName, ip := range map[string]sas.IPRange{"any": {}, "single": loopback, "range": loopRange} {
				n++
				pk := fmt.Sprintf("p%03d", n)
				t.Run(fmt.Sprintf("%s/range=%v/ip=%s", perms, rangeOn, ipName), func(t *testing.T) {
					mustAdd(t, admin, pk, "seed")
					s := sas.TableSignature{
						Table: name, Permissions: perms, Expiry: time.Now().Add(time.Hour),
						IP: ip, Protocol: sas.HTTPSAndHTTP,
					}
					if rangeOn {
						s.StartPartitionKey, s.EndPartitionKey = pk, pk
					}
					checkAllowed(t, admin, sasClient(t, env, name, sign(t, env, s)), pk, perms)
				})
			}
		}
	}
}

// A SAS that names a stored access policy takes its permissions and times
// from the policy.
func TestTableSASWithStoredPolicy(t *testing.T) {
	env := testenv.Azurite(t)
	name, admin := env.NewTable(t, nil)
	ctx := testenv.Ctx(t)
	sets := []sas.Permissions{sas.Read, sas.Add | sas.Update, sas.Read | sas.Add | sas.Update | sas.Delete}
	svc := env.NewService(t, nil)
	var policies []sas.Policy
	for i, perms := range sets {
		id := fmt.Sprintf("policy%d", i)
		policies = append(policies, sas.Policy{ID: id, Permissions: perms,
			Start: time.Now().Add(-15 * time.Minute), Expiry: time.Now().Add(time.Hour)})
		if err := sas.SetPolicies(ctx, svc, name, policies); err != nil {
			t.Fatalf("SetPolicies: %v", err)
		}
		for _, rangeOn := range []bool{false, true} {
			pk := fmt.Sprintf("%s-%v", id, rangeOn)
			t.Run(fmt.Sprintf("%s/range=%v", perms, rangeOn), func(t *testing.T) {
				mustAdd(t, admin, pk, "seed")
				s := sas.TableSignature{Table: name, Identifier: id, Protocol: sas.HTTPSAndHTTP,
					IP: sas.IPRange{Start: netip.MustParseAddr("127.0.0.1")}}
				if rangeOn {
					s.StartPartitionKey, s.StartRowKey, s.EndPartitionKey, s.EndRowKey = pk, "a", pk, "z"
				}
				checkAllowed(t, admin, sasClient(t, env, name, sign(t, env, s)), pk, perms)
			})
		}
	}
}

func TestReadOnlySASCannotWrite(t *testing.T) {
	env := testenv.Azurite(t)
	name, admin := env.NewTable(t, nil)
	mustAdd(t, admin, "p", "seed")
	mustAdd(t, admin, "p", "victim")
	ctx := testenv.Ctx(t)
	c := sasClient(t, env, name, sign(t, env, sas.TableSignature{
		Table: name, Permissions: sas.Read, Expiry: time.Now().Add(time.Hour), Protocol: sas.HTTPSAndHTTP,
		StartPartitionKey: "p", EndPartitionKey: "p",
	}))
	if _, err := c.GetEntity(ctx, "p", "seed", nil); err != nil {
		t.Fatalf("read: %v", err)
	}
	writes := map[string]func() error{
		"add": func() error { _, err := c.AddEntity(ctx, entity("p", "new"), nil); return err },
		"update": func() error {
			_, err := c.UpdateEntity(ctx, entity("p", "seed"), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace})
			return err
		},
		"upsert": func() error { _, err := c.UpsertEntity(ctx, entity("p", "seed"), nil); return err },
		"delete": func() error { _, err := c.DeleteEntity(ctx, "p", "victim", nil); return err },
	}
	for name, w := range writes {
		err := w()
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != 403 || re.ErrorCode != "AuthorizationPermissionMismatch" {
			t.Errorf("%s: got %v, want 403 AuthorizationPermissionMismatch", name, err)
		}
		if !forbidden(err) {
			t.Errorf("%s: forbidden = false for %v", name, err)
		}
	}
	if _, err := admin.GetEntity(ctx, "p", "victim", nil); err != nil {
		t.Errorf("victim entity is gone: %v", err)
	}
}

// Tokens the service must refuse: expired, not yet valid, signed with
// another key, altered after signing, https only over http, and aztables'
// own range token (signed but not sent).
func TestRejectedTokens(t *testing.T) {
	env := testenv.Azurite(t)
	name, admin := env.NewTable(t, nil)
	mustAdd(t, admin, "p", "seed")
	now := time.Now()
	good := sas.TableSignature{Table: name, Permissions: sas.Read, Expiry: now.Add(time.Hour), Protocol: sas.HTTPSAndHTTP,
		StartPartitionKey: "p", EndPartitionKey: "p"}

	otherKey, err := sas.NewCredential(env.Account, "b3RoZXIta2V5LW90aGVyLWtleS1vdGhlci1rZXk=")
	if err != nil {
		t.Fatal(err)
	}
	tamper := func(k, v string) url.Values {
		tok := sign(t, env, good)
		if v == "" {
			tok.Del(k)
		} else {
			tok.Set(k, v)
		}
		return tok
	}
	cases := []struct {
		name  string
		token func() (url.Values, error)
		code  string // Azurite's error code
	}{
		{"expired", func() (url.Values, error) {
			s := good
			s.Start, s.Expiry = now.Add(-2*time.Hour), now.Add(-time.Hour)
			return s.Sign(credential(t, env))
		}, "AuthorizationFailure"},
		{"not yet valid", func() (url.Values, error) {
			s := good
			s.Start, s.Expiry = now.Add(time.Hour), now.Add(2*time.Hour)
			return s.Sign(credential(t, env))
		}, "AuthorizationFailure"},
		{"wrong key", func() (url.Values, error) { return good.Sign(otherKey) }, "AuthorizationFailure"},
		{"wrong signature", func() (url.Values, error) { return tamper("sig", "AAAA"+sign(t, env, good).Get("sig")[4:]), nil }, "AuthorizationFailure"},
		{"permissions raised after signing", func() (url.Values, error) { return tamper("sp", "raud"), nil }, "AuthorizationFailure"},
		{"range dropped after signing", func() (url.Values, error) { return tamper("spk", ""), nil }, "AuthorizationFailure"},
		{"range widened after signing", func() (url.Values, error) { return tamper("epk", "q"), nil }, "AuthorizationFailure"},
		{"expiry extended after signing", func() (url.Values, error) { return tamper("se", "2999-01-01T00:00:00Z"), nil }, "AuthorizationFailure"},
		{"https only over http", func() (url.Values, error) {
			s := good
			s.Protocol = ""
			return s.Sign(credential(t, env))
		}, "AuthorizationProtocolMismatch"},
		{"aztables range token (range signed, not sent)", func() (url.Values, error) {
			c := env.Client(t, name, nil)
			u, err := c.GetTableSASURL(aztables.SASPermissions{Read: true, StartPartitionKey: "p", EndPartitionKey: "p"},
				now.Add(-time.Minute).UTC(), now.Add(time.Hour).UTC())
			if err != nil {
				return nil, err
			}
			pu, err := url.Parse(u)
			if err != nil {
				return nil, err
			}
			return pu.Query(), nil
		}, "AuthorizationFailure"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := tc.token()
			if err != nil {
				t.Fatal(err)
			}
			// Build the URL by hand: TableURL refuses an https-only token
			// over http, and that refusal is tested elsewhere.
			c, err := aztables.NewClientWithNoCredential(env.TableURL(name)+"?"+tok.Encode(), nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.GetEntity(testenv.Ctx(t), "p", "seed", nil)
			if !forbidden(err) {
				t.Fatalf("got %v, want a 403 authorization error", err)
			}
			if got := errorCode(err); got != tc.code {
				t.Errorf("code: got %q, want %q", got, tc.code)
			}
		})
	}
}

// Revoking a stored access policy stops every SAS that names it. Azurite
// reads the policy on each request; the service may take up to 30 s, so
// the test polls with a bound.
func TestRevokedPolicyStopsSAS(t *testing.T) {
	env := testenv.Azurite(t)
	name, admin := env.NewTable(t, nil)
	mustAdd(t, admin, "p", "seed")
	ctx := testenv.Ctx(t)
	// Azurite requires all three policy fields (the service does not).
	start, expiry := time.Now().Add(-15*time.Minute), time.Now().Add(time.Hour)
	keep := sas.Policy{ID: "keep", Permissions: sas.Read, Start: start, Expiry: expiry}
	gone := sas.Policy{ID: "gone", Permissions: sas.Read, Start: start, Expiry: expiry}
	svc := env.NewService(t, nil)
	if err := sas.SetPolicies(ctx, svc, name, []sas.Policy{keep, gone}); err != nil {
		t.Fatal(err)
	}
	client := func(id string) *aztables.Client {
		return sasClient(t, env, name, sign(t, env, sas.TableSignature{Table: name, Identifier: id, Protocol: sas.HTTPSAndHTTP}))
	}
	keepC, goneC := client("keep"), client("gone")
	for _, c := range []*aztables.Client{keepC, goneC} {
		if _, err := c.GetEntity(ctx, "p", "seed", nil); err != nil {
			t.Fatalf("before revoke: %v", err)
		}
	}
	if err := sas.SetPolicies(ctx, svc, name, []sas.Policy{keep}); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	deadline := revoked.Add(45 * time.Second)
	for {
		_, err := goneC.GetEntity(ctx, "p", "seed", nil)
		if forbidden(err) {
			t.Logf("revoked SAS refused after %v (code %s)", time.Since(revoked).Round(time.Millisecond), errorCode(err))
			break
		}
		if err != nil {
			t.Fatalf("after revoke: got %v, want an authorization error", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("revoked SAS still accepted after %v", time.Since(revoked))
		}
		time.Sleep(250 * time.Millisecond)
	}
	if _, err := keepC.GetEntity(ctx, "p", "seed", nil); err != nil {
		t.Errorf("the other policy's SAS stopped working: %v", err)
	}
	got, err := sas.Policies(ctx, svc, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "keep" {
		t.Errorf("policies after revoke: got %+v, want only keep", got)
	}
	// Setting none removes the last one.
	if err := sas.SetPolicies(ctx, svc, name, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := sas.Policies(ctx, svc, name); err != nil || len(got) != 0 {
		t.Errorf("after revoking all: got %+v, %v; want none", got, err)
	}
	if _, err := keepC.GetEntity(ctx, "p", "seed", nil); !forbidden(err) {
		t.Errorf("SAS of the last revoked policy: got %v, want an authorization error", err)
	}
}

func TestPolicies(t *testing.T) {
	env := testenv.Azurite(t)
	name, _ := env.NewTable(t, nil)
	svc := env.NewService(t, nil)
	ctx := testenv.Ctx(t)
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 7200))
	var set, want []sas.Policy
	for i := range sas.MaxPolicies {
		p := sas.Policy{ID: fmt.Sprintf("id%d", i), Permissions: sas.Read | sas.Permissions(1<<i%4),
			Start: start, Expiry: start.Add(time.Duration(i+1) * time.Hour)}
		set = append(set, p)
		p.Start, p.Expiry = p.Start.UTC(), p.Expiry.UTC()
		want = append(want, p)
	}
	if err := sas.SetPolicies(ctx, svc, name, set); err != nil {
		t.Fatalf("SetPolicies: %v", err)
	}
	got, err := sas.Policies(ctx, svc, name)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Policies:\ngot  %v\nwant %v", got, want)
	}
	// A sixth is refused before any request.
	err = sas.SetPolicies(ctx, svc, name, append(set, sas.Policy{ID: "sixth", Permissions: sas.Read}))
	var ve *tablekit.ValidationError
	if !errors.Is(err, tablekit.ErrInvalid) || !errors.As(err, &ve) || ve.Field != "policies" {
		t.Errorf("sixth policy: got %v, want tablekit.ErrInvalid for policies", err)
	}
	for _, bad := range []sas.Policy{
		{ID: ""},
		{ID: strings.Repeat("x", 65)},
		{ID: "line\nbreak", Permissions: sas.Read},
		{ID: "times", Start: start, Expiry: start},
	} {
		if err := sas.SetPolicies(ctx, svc, name, []sas.Policy{bad}); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("SetPolicies(%+v): got %v, want tablekit.ErrInvalid", bad, err)
		}
	}
}

// An account SAS for the table service works for service, table and entity
// operations, honours the chosen protocol, and a read-only one cannot write.
func TestAccountSAS(t *testing.T) {
	env := testenv.Azurite(t)
	cred := credential(t, env)
	ctx := testenv.Ctx(t)
	service := func(s sas.AccountSignature) *aztables.ServiceClient {
		t.Helper()
		tok, err := s.Sign(cred)
		if err != nil {
			t.Fatal(err)
		}
		c, err := aztables.NewServiceClientWithNoCredential(env.Endpoint+"/?"+tok.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	all := sas.AccountRead | sas.AccountWrite | sas.AccountDelete | sas.AccountList |
		sas.AccountAdd | sas.AccountCreate | sas.AccountUpdate
	full := sas.AccountSignature{Permissions: all, Expiry: time.Now().Add(time.Hour), Protocol: sas.HTTPSAndHTTP,
		ResourceTypes: sas.ResourceService | sas.ResourceContainer | sas.ResourceObject,
		IP:            sas.IPRange{Start: netip.MustParseAddr("127.0.0.1")}}
	svc := service(full)

	name := testenv.TableName(t)
	if _, err := svc.CreateTable(ctx, name, nil); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() { _, _ = env.Client(t, name, nil).Delete(context.Background(), nil) })
	if _, err := svc.GetProperties(ctx, nil); err != nil {
		t.Errorf("service properties: %v", err)
	}
	f := fmt.Sprintf("TableName eq '%s'", name)
	page, err := svc.NewListTablesPager(&aztables.ListTablesOptions{Filter: &f}).NextPage(ctx)
	if err != nil || len(page.Tables) != 1 {
		t.Errorf("list tables: got %v, %v; want the table", page.Tables, err)
	}
	tc := svc.NewClient(name)
	if _, err := tc.AddEntity(ctx, entity("p", "r"), nil); err != nil {
		t.Errorf("add: %v", err)
	}
	if _, err := tc.GetEntity(ctx, "p", "r", nil); err != nil {
		t.Errorf("get: %v", err)
	}
	if _, err := tc.UpdateEntity(ctx, entity("p", "r"), nil); err != nil {
		t.Errorf("update: %v", err)
	}
	if _, err := tc.DeleteEntity(ctx, "p", "r", nil); err != nil {
		t.Errorf("delete entity: %v", err)
	}

	readOnly := full
	readOnly.Permissions = sas.AccountRead | sas.AccountList
	ro := service(readOnly).NewClient(name)
	_, err = ro.AddEntity(ctx, entity("p", "r2"), nil)
	if !forbidden(err) || errorCode(err) != "AuthorizationPermissionMismatch" {
		t.Errorf("read-only account SAS add: got %v, want AuthorizationPermissionMismatch", err)
	}

	httpsOnly := full
	httpsOnly.Protocol = ""
	_, err = service(httpsOnly).NewClient(name).GetEntity(ctx, "p", "r", nil)
	if !forbidden(err) || errorCode(err) != "AuthorizationProtocolMismatch" {
		t.Errorf("https-only account SAS over http: got %v, want AuthorizationProtocolMismatch", err)
	}

	expired := full
	expired.Start, expired.Expiry = time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour)
	if _, err := service(expired).NewClient(name).GetEntity(ctx, "p", "r", nil); !forbidden(err) {
		t.Errorf("expired account SAS: got %v, want an authorization error", err)
	}

	for _, v := range []string{"2019-02-02", "2020-12-06"} {
		s := full
		s.Version = v
		if _, err := service(s).NewClient(name).AddEntity(ctx, entity("p", v), nil); err != nil {
			t.Errorf("version %s: %v", v, err)
		}
	}
	if _, err := svc.DeleteTable(ctx, name, nil); err != nil {
		t.Errorf("delete table: %v", err)
	}
}

// The signed versions that share the documented string-to-sign are accepted.
func TestTableSASVersions(t *testing.T) {
	env := testenv.Azurite(t)
	name, admin := env.NewTable(t, nil)
	mustAdd(t, admin, "p", "seed")
	for _, v := range []string{"", "2015-04-05", "2018-11-09", "2019-02-02", "2020-12-06"} {
		t.Run("v"+v, func(t *testing.T) {
			c := sasClient(t, env, name, sign(t, env, sas.TableSignature{Table: name, Permissions: sas.Read,
				Expiry: time.Now().Add(time.Hour), Protocol: sas.HTTPSAndHTTP, Version: v}))
			if _, err := c.GetEntity(testenv.Ctx(t), "p", "seed", nil); err != nil {
				t.Errorf("got %v, want success", err)
			}
		})
	}
}

// forbidden reports the service refusing an aztables client's request
// for its SAS: 403, as tablekit.ErrForbidden matches it in tablekit's calls.
func forbidden(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusForbidden
}
