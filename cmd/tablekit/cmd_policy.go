package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// cmd_policy.go holds every call on stored access policies.

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
		return badTableName(name, bad)
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
	switch verb {
	case "set", "rm":
		err = changePolicies(ctx, conn.svc, name, verb, pos[2], p)
	default:
		err = listPolicies(ctx, e, conn.svc, name)
	}
	switch {
	case errors.Is(err, tablekit.ErrUnsupported):
		return fmt.Errorf("stored access policies: Cosmos DB for Table has none (a SAS there cannot name one): %w", err)
	case errors.Is(err, tablekit.ErrInvalid):
		return &usageError{err.Error()}
	}
	return err
}

// errPolicyNotFound is policy rm of an ID the table does not have.
var errPolicyNotFound = errors.New("no stored access policy with this ID")

// changePolicies sets (adds or replaces) or removes the policy id: the
// service replaces a table's whole list at once, so the list is read,
// changed and written back.
func changePolicies(ctx context.Context, svc *table.Service, name, verb, id string, p sas.Policy) error {
	ps, err := sas.Policies(ctx, svc, name)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(ps, func(q sas.Policy) bool { return q.ID == id })
	switch {
	case verb == "set" && i >= 0:
		ps[i] = p
	case verb == "set":
		ps = append(ps, p)
	case i < 0:
		return fmt.Errorf("%s on table %s: %w", id, name, errPolicyNotFound)
	default:
		ps = slices.Delete(ps, i, i+1)
	}
	return sas.SetPolicies(ctx, svc, name, ps)
}

func listPolicies(ctx context.Context, e *env, svc *table.Service, name string) error {
	ps, err := sas.Policies(ctx, svc, name)
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
