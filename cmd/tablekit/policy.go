package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// policy.go holds every call on stored access policies.

func init() {
	register(&command{
		name: "policy", args: "list|set|rm TABLE [ID] [--permissions raud] [--start T] [--expiry T]",
		summary: "list, set or remove a table's stored access policies (what tablekit sas --policy names)",
		example: `tablekit policy set orders readers --permissions r --start 0s --expiry 720h
tablekit policy list orders
tablekit policy rm orders readers    # every SAS naming it stops working`,
		run: runPolicy,
	})
}

func runPolicy(ctx context.Context, e *env, args []string) error {
	c := commands["policy"]
	fs := newFlags(e, c)
	src := sourceFlags()
	src.register(fs)
	var perms, start, expiry string
	fs.StringVar(&perms, "permissions", "", "set: what every SAS naming the policy allows (r, a, u, d)")
	fs.StringVar(&start, "start", "", "set: when those tokens become valid: a duration from now or an RFC 3339 time")
	fs.StringVar(&expiry, "expiry", "", "set: when they stop working: a duration from now or an RFC 3339 time")
	pos, err := parseBetween(fs, args, 2, 3)
	if err != nil {
		return err
	}
	verb, name := pos[0], pos[1]
	switch {
	case verb != "list" && verb != "set" && verb != "rm":
		return usagef("%q: want list, set or rm", verb)
	case verb == "list" && len(pos) != 2:
		return usagef("policy list takes a TABLE only")
	case verb != "list" && len(pos) != 3:
		return usagef("policy %s takes a TABLE and a policy ID", verb)
	case verb != "set" && (perms != "" || start != "" || expiry != ""):
		return usagef("--permissions, --start and --expiry are for policy set")
	}
	if bad := wire.CheckTableName(name); bad != nil {
		return &usageError{"table name " + bad.String()}
	}
	var p sas.Policy
	if verb == "set" {
		p.ID = pos[2]
		now := time.Now()
		if p.Permissions, err = sas.ParsePermissions(perms); err != nil {
			return usagef("--permissions: %v", err)
		}
		if start != "" {
			if p.Start, err = parseWhen("start", start, now); err != nil {
				return err
			}
		}
		if expiry != "" {
			if p.Expiry, err = parseWhen("expiry", expiry, now); err != nil {
				return err
			}
		}
	}
	conn, err := src.open(e, new(retryCount))
	if err != nil {
		return err
	}
	t, err := table.New[table.Entity](conn.svc, name)
	if err != nil {
		return err
	}
	client := t.Client()
	switch verb {
	case "set":
		err = sas.SetPolicy(ctx, client, p)
	case "rm":
		err = sas.RevokePolicy(ctx, client, pos[2])
	default:
		err = listPolicies(ctx, e, t)
	}
	switch {
	case errors.Is(err, table.ErrUnsupported):
		return fmt.Errorf("stored access policies: Cosmos DB for Table has none (a SAS there cannot name one): %w", err)
	case errors.Is(err, sas.ErrInvalid):
		return &usageError{err.Error()}
	}
	return err
}

func listPolicies(ctx context.Context, e *env, t *dynTable) error {
	ps, err := sas.GetPolicies(ctx, t.Client())
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPERMISSIONS\tSTART\tEXPIRY")
	when := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	}
	for _, p := range ps {
		perm := p.Permissions.String()
		if perm == "" {
			perm = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.ID, perm, when(p.Start), when(p.Expiry))
	}
	return tw.Flush()
}
