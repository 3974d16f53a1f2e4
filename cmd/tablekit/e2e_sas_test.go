package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// sasURL runs tablekit sas and returns the URL it printed, parsed too.
func sasURL(t *testing.T, cs string, args ...string) (string, *sas.Parsed) {
	t.Helper()
	r := tk(t, cs, append([]string{"sas"}, args...)...)
	wantCode(t, r, exitOK, "sas "+strings.Join(args, " "))
	u := strings.TrimSpace(r.stdout)
	p, err := sas.Parse(u)
	if err != nil {
		t.Fatalf("sas printed %q: %v", u, err)
	}
	if sig := strings.SplitN(strings.SplitN(u, "sig=", 2)[1], "&", 2)[0]; strings.Contains(r.stderr, sig) {
		t.Errorf("stderr shows the signature: %s", r.stderr)
	}
	return u, p
}

func TestE2ESASFields(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"alice", "bob"}, 3)
	ctx := context.Background()
	readWith := func(u string) error {
		svc, err := table.NewServiceWithSAS(u, nil) // a table SAS: scoped to its table
		if err != nil {
			return err
		}
		tbl, err := table.New[seedEntity](svc, name)
		if err != nil {
			return err
		}
		_, err = tbl.Get(ctx, "alice", "0001", nil)
		return err
	}

	// Every field the library signs: Azurite checks the signature over
	// all of them (it enforces neither the key range nor the address).
	start := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	expiry := start.Add(3 * time.Hour)
	u, p := sasURL(t, cs, name, "--permissions", "ra", "--start", start.Format(time.RFC3339), "--expiry", expiry.Format(time.RFC3339),
		"--start-pk", "alice", "--start-rk", "0000", "--end-pk", "bob", "--end-rk", "0002", "--ip", "127.0.0.1-127.0.0.255")
	tests := []struct {
		field     string
		got, want any
	}{
		{"table", p.Table, name},
		{"permissions", p.Permissions, sas.Read | sas.Add},
		{"start", p.Start, start},
		{"expiry", p.Expiry, expiry},
		{"keys", [4]string{p.StartPartitionKey, p.StartRowKey, p.EndPartitionKey, p.EndRowKey}, [4]string{"alice", "0000", "bob", "0002"}},
		{"ip", p.IP.String(), "127.0.0.1-127.0.0.255"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("sas signed %s %v, want %v", tt.field, tt.got, tt.want)
		}
	}
	if err := readWith(u); err != nil {
		t.Errorf("read with the SAS: %v", err)
	}

	// A stored access policy: the token takes its fields from it and dies
	// with it.
	wantCode(t, tk(t, cs, "policy", "set", name, "readers", "--permissions", "r", "--start", "-1m", "--expiry", "1h"), exitOK, "policy set")
	r := tk(t, cs, "policy", "list", name)
	wantCode(t, r, exitOK, "policy list")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "readers  r ") {
		t.Errorf("policy list printed %q", r.stdout)
	}
	u, p = sasURL(t, cs, name, "--policy", "readers")
	if p.Identifier != "readers" || p.Permissions != 0 || !p.Expiry.IsZero() || !p.Start.IsZero() {
		t.Errorf("a SAS naming a policy carries %s, want only the identifier", p)
	}
	if err := readWith(u); err != nil {
		t.Errorf("read with the policy's SAS: %v", err)
	}
	wantCode(t, tk(t, cs, "policy", "rm", name, "readers"), exitOK, "policy rm")
	if err := readWith(u); !errors.Is(err, tablekit.ErrForbidden) {
		t.Errorf("read after the policy was removed: %v, want forbidden", err)
	}
	wantCode(t, tk(t, cs, "policy", "rm", name, "readers"), exitNotFound, "policy rm again")

	// An account SAS reads every table.
	u, p = sasURL(t, cs, "--account", "--permissions", "rl", "--resource-types", "co")
	if p.Kind != sas.KindAccount || p.AccountPermissions != sas.AccountRead|sas.AccountList || p.ResourceTypes != sas.ResourceContainer|sas.ResourceObject {
		t.Errorf("account SAS %s", p)
	}
	svc, err := table.NewServiceWithSAS(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, _ := table.New[seedEntity](svc, name)
	if e, err := tbl.Get(ctx, "bob", "0002", nil); err != nil || e.N != 2 {
		t.Errorf("read with the account SAS: %+v, %v", e, err)
	}

	// Usage errors: nothing signed or stored.
	for _, args := range [][]string{
		{"sas", name, "--start", "yesterday"},
		{"sas", name, "--expiry", "-1h"},
		{"sas", name, "--ip", "::1"},
		{"sas", name, "--ip", "10.0.0.9-10.0.0.1"},
		{"sas", name, "--partition", "a", "--start-pk", "a"},
		{"sas", name, "--start-rk", "0"},
		{"sas", name, "--resource-types", "o"},
		{"sas", "--account", "--permissions", "x"},
		{"sas", "--account", "--partition", "a"},
		{"sas", name, "--account"},
		{"sas"},
		{"policy", "set", name, "p", "--permissions", "z"},
		{"policy", "set", name},
		{"policy", "show", name},
		{"policy", "list", name, "--expiry", "1h"},
	} {
		wantCode(t, tk(t, cs, args...), exitUsage, strings.Join(args, " "))
	}
	if r := tk(t, cs, "policy", "list", name); strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("refused commands stored a policy: %q", r.stdout)
	}
}

// TestE2ECosmosRefusals: what Cosmos DB for Table lacks is refused with
// a message saying so: stored access policies.
func TestE2ECosmosRefusals(t *testing.T) {
	c := newCosmosRun(t, nil)
	name := seed(t, c.az, []string{"a"}, 3)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"policy", "list", name}, "Cosmos DB for Table has none"},
		{[]string{"policy", "rm", name, "p"}, "Cosmos DB for Table has none"},
	} {
		r := c.tk(t, tt.args...)
		wantCode(t, r, exitFailed, strings.Join(tt.args, " ")+" on Cosmos DB")
		if !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: stderr %q does not say %q", tt.args, r.stderr, tt.want)
		}
	}
}
