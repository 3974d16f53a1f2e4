package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"time"

	"github.com/tablekit/tablekit/sas"
)

func init() {
	register(&command{
		name: "sas", args: "TABLE --permissions r --expiry 1h [--partition PK]",
		summary: "print a table SAS URL (needs a connection string with the account key)",
		example: `tablekit sas orders --permissions r --expiry 1h --partition alice
tablekit sas uploads --permissions au --expiry 15m`,
		run: runSAS,
	})
}

// runSAS signs a table SAS with the account key. The URL, which holds the
// signature, goes to stdout only, since it is what was asked for; what is
// logged on stderr is the redacted form.
func runSAS(ctx context.Context, e *env, args []string) error {
	var perms, partition string
	var expiry time.Duration
	conn, name, err := tableCommand(e, commands["sas"], args, func(fs *flag.FlagSet) {
		fs.StringVar(&perms, "permissions", "r", "what the token allows: r (query), a (add), u (update), d (delete), in any combination")
		fs.DurationVar(&expiry, "expiry", time.Hour, "how long the token is valid, e.g. 15m, 1h, 24h")
		fs.StringVar(&partition, "partition", "", "limit the token to one PartitionKey")
	})
	if err != nil {
		return err
	}
	p, err := sas.ParsePermissions(perms)
	if err != nil {
		return usagef("--permissions: %v", err)
	}
	if expiry <= 0 {
		return usagef("--expiry must be positive")
	}
	if !conn.hasConn || conn.conn.AccountKey == "" {
		return usagef("signing a SAS needs the account key: give a connection string with AccountKey")
	}
	cred, err := sas.NewCredential(conn.conn.AccountName, conn.conn.AccountKey)
	if err != nil {
		return err
	}
	sig := sas.TableSignature{
		Table: name, Permissions: p, Expiry: time.Now().Add(expiry),
		StartPartitionKey: partition, EndPartitionKey: partition,
	}
	if u, err := url.Parse(conn.conn.Endpoint); err == nil && u.Scheme == "http" {
		sig.Protocol = sas.HTTPSAndHTTP // the emulator serves http only
	}
	token, err := sig.Sign(cred)
	if err != nil {
		return err
	}
	tableURL, err := sas.TableURL(conn.conn.Endpoint, name, token)
	if err != nil {
		return err
	}
	if parsed, err := sas.Parse(tableURL); err == nil {
		fmt.Fprintf(e.stderr, "tablekit sas: issued %s\n", parsed)
	}
	_, err = fmt.Fprintln(e.stdout, tableURL)
	return err
}
