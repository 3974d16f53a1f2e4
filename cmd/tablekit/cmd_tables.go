package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "tables", args: "[--prefix P]", summary: "list the tables of the account",
		example: "tablekit tables --prefix logs",
		run:     runTables,
	})
	register(&command{
		name: "create", args: "TABLE", summary: "create a table (nothing to do if it exists)",
		example: "tablekit create orders",
		run:     runCreate,
	})
	register(&command{
		name: "drop", args: "TABLE --yes", summary: "delete a table and everything in it",
		example: "tablekit drop orders --yes",
		run:     runDrop,
	})
}

// listTables is the one place that lists tables (Service.Tables: a name
// range for the prefix).
func listTables(ctx context.Context, svc *table.Service, prefix string, yield func(name string) error) error {
	for name, err := range svc.Tables(ctx, &table.ListTablesOptions{Prefix: prefix}) {
		if err != nil {
			return err
		}
		if err := yield(name); err != nil {
			return err
		}
	}
	return nil
}

func runTables(ctx context.Context, e *env, args []string) error {
	c := commands["tables"]
	fs := newFlags(e, c)
	src := sourceFlags()
	src.register(fs)
	prefix := fs.String("prefix", "", "only tables whose name starts with this")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	conn, err := src.open(e, new(retryCount))
	if err != nil {
		return err
	}
	return listTables(ctx, conn.svc, *prefix, func(name string) error {
		_, err := fmt.Fprintln(e.stdout, name)
		return err
	})
}

// tableCommand parses a command that takes one table name.
func tableCommand(e *env, c *command, args []string, extra func(*flag.FlagSet)) (*connection, string, error) {
	conn, pos, err := tableArgs(e, c, args, 1, 1, extra)
	if err != nil {
		return nil, "", err
	}
	return conn, pos[0], nil
}

// tableArgs parses a command whose first of min to max arguments is a
// table name, and opens the account.
func tableArgs(e *env, c *command, args []string, min, max int, extra func(*flag.FlagSet)) (*connection, []string, error) {
	fs := newFlags(e, c)
	src := sourceFlags()
	src.register(fs)
	if extra != nil {
		extra(fs)
	}
	pos, err := parseBetween(fs, args, min, max)
	if err != nil {
		return nil, nil, err
	}
	if bad := wire.CheckTableName(pos[0]); bad != nil {
		return nil, nil, badTableName(pos[0], bad)
	}
	src.rate = rateOf(fs)
	conn, err := src.open(e, new(retryCount))
	return conn, pos, err
}

func runCreate(ctx context.Context, e *env, args []string) error {
	conn, name, err := tableCommand(e, commands["create"], args, nil)
	if err != nil {
		return err
	}
	return conn.svc.CreateTable(ctx, name)
}

func runDrop(ctx context.Context, e *env, args []string) error {
	var yes bool
	conn, name, err := tableCommand(e, commands["drop"], args, func(fs *flag.FlagSet) {
		fs.BoolVar(&yes, "yes", false, "really delete the table and all its entities")
	})
	if err != nil {
		return err
	}
	if !yes {
		return usagef("dropping %s deletes all its entities: add --yes", name)
	}
	return conn.svc.DeleteTable(ctx, name)
}
