package main

import (
	"context"
	"flag"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/sas"
)

func init() {
	register(&command{
		name: "sas", args: "TABLE [--permissions raud] [--start T] [--expiry T] [--partition PK | --start-pk PK --end-pk PK [--start-rk RK --end-rk RK]] [--ip A[-B]] [--policy ID] | --account [--permissions rwdlacu] [--resource-types sco]",
		summary: "print a table SAS URL, or an account SAS (needs a connection string with the account key)",
		example: `tablekit sas orders --permissions r --expiry 1h --partition alice
tablekit sas uploads --permissions au --expiry 15m --ip 203.0.113.0-203.0.113.255
tablekit sas orders --start-pk a --end-pk m --start 2030-01-01T00:00:00Z --expiry 2030-01-02T00:00:00Z
tablekit policy set orders readers --permissions r --expiry 720h && tablekit sas orders --policy readers
tablekit sas --account --permissions rl --resource-types sco --expiry 1h`,
		run: runSAS,
	})
}

// sasFlags are what a SAS may carry besides its table.
type sasFlags struct {
	perms, start, expiry, partition, ip, policy, resources string
	spk, epk, srk, erk                                     string
	account                                                bool
}

// parseWhen reads a time flag: a duration from now (15m, -5m, 24h) or an
// RFC 3339 time (2030-01-01T00:00:00Z).
func parseWhen(flagName, s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, usagef("--%s %q: want a duration from now (1h, -5m) or an RFC 3339 time (2030-01-01T00:00:00Z)", flagName, s)
	}
	return t, nil
}

// parseIP reads --ip: one IPv4 address or a range A-B (sas checks the rest).
func parseIP(s string) (sas.IPRange, error) {
	first, last, isRange := strings.Cut(s, "-")
	var r sas.IPRange
	var err error
	if r.Start, err = netip.ParseAddr(first); err == nil && isRange {
		r.End, err = netip.ParseAddr(last)
	}
	if err != nil {
		return sas.IPRange{}, usagef("--ip %q: want an IPv4 address or a range A-B", s)
	}
	return r, nil
}

// accountBits reads letters by the names sas gives its permission and
// resource bits, so that the letters have one home (package sas).
func accountBits[B interface {
	~uint8 | ~uint16
	String() string
}](flagName, s string, last B) (B, error) {
	var p B
	for _, r := range s {
		found := false
		for b := B(1); b != 0 && b <= last; b <<= 1 {
			if b.String() == string(r) {
				p, found = p|b, true
			}
		}
		if !found {
			var all B
			for b := B(1); b != 0 && b <= last; b <<= 1 {
				all |= b
			}
			return 0, usagef("--%s %q: unknown letter %q (allowed: %s)", flagName, s, r, all)
		}
	}
	return p, nil
}

// runSAS signs a table or account SAS with the account key. The URL, which
// holds the signature, goes to stdout only, since it is what was asked
// for; what is logged on stderr is the redacted form.
func runSAS(ctx context.Context, e *env, args []string) error {
	c := commands["sas"]
	fs := newFlags(e, c)
	src := sourceFlags()
	src.register(fs)
	var f sasFlags
	fs.StringVar(&f.perms, "permissions", "r", "what the token allows: r (query), a (add), u (update), d (delete), in any combination; with --account r, w, d, l, a, c, u")
	fs.StringVar(&f.start, "start", "", "when the token becomes valid: a duration from now or an RFC 3339 time; default: 15 minutes ago, for clock skew")
	fs.StringVar(&f.expiry, "expiry", "1h", "when the token stops working: a duration from now (15m, 24h) or an RFC 3339 time")
	fs.StringVar(&f.partition, "partition", "", "limit the token to one PartitionKey")
	fs.StringVar(&f.spk, "start-pk", "", "limit the token to keys from this PartitionKey on")
	fs.StringVar(&f.epk, "end-pk", "", "limit the token to keys up to this PartitionKey (inclusive)")
	fs.StringVar(&f.srk, "start-rk", "", "with --start-pk: from this RowKey of it on")
	fs.StringVar(&f.erk, "end-rk", "", "with --end-pk: up to this RowKey of it (inclusive)")
	fs.StringVar(&f.ip, "ip", "", "only from this IPv4 address or range A-B")
	fs.StringVar(&f.policy, "policy", "", "name a stored access policy of the table (tablekit policy): the token takes its permissions and times from it, unless given here, and dies with it")
	fs.BoolVar(&f.account, "account", false, "an account SAS for the table service instead (no TABLE): every table, no key range or policy")
	fs.StringVar(&f.resources, "resource-types", "o", "with --account: s (service), c (tables), o (entities)")
	pos, err := parseBetween(fs, args, 0, 1)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if f.account != (len(pos) == 0) {
		return usagef("give a TABLE, or --account without one")
	}
	if !f.account {
		if bad := wire.CheckTableName(pos[0]); bad != nil {
			return badTableName(pos[0], bad)
		}
	}
	sig, acct, err := f.signature(pos, set, time.Now())
	if err != nil {
		return err
	}
	conn, err := src.open(e, new(retryCount))
	if err != nil {
		return err
	}
	if !conn.hasConn || conn.conn.AccountKey == "" {
		return usagef("signing a SAS needs the account key: give a connection string with AccountKey")
	}
	cred, err := sas.NewCredential(conn.conn.AccountName, conn.conn.AccountKey)
	if err != nil {
		return err
	}
	if u, err := url.Parse(conn.conn.Endpoint); err == nil && u.Scheme == "http" {
		sig.Protocol, acct.Protocol = sas.HTTPSAndHTTP, sas.HTTPSAndHTTP // the emulator serves http only
	}
	var out string
	if f.account {
		token, err := acct.Sign(cred)
		if err != nil {
			return usagef("%v", err)
		}
		out = strings.TrimSuffix(conn.conn.Endpoint, "/") + "/?" + token.Encode()
	} else {
		token, err := sig.Sign(cred)
		if err != nil {
			return usagef("%v", err)
		}
		if out, err = sas.TableURL(conn.conn.Endpoint, pos[0], token); err != nil {
			return err
		}
	}
	if parsed, err := sas.Parse(out); err == nil {
		fmt.Fprintf(e.stderr, "tablekit sas: issued %s\n", parsed)
	}
	_, err = fmt.Fprintln(e.stdout, out)
	return err
}

// signature checks the flags and builds the table or account signature;
// with --policy, permissions and expiry come from the policy unless the
// flags were given.
func (f *sasFlags) signature(pos []string, set map[string]bool, now time.Time) (sas.TableSignature, sas.AccountSignature, error) {
	var sig sas.TableSignature
	var acct sas.AccountSignature
	var err error
	fromPolicy := f.policy != ""
	var start, expiry time.Time
	if f.start != "" {
		if start, err = parseWhen("start", f.start, now); err != nil {
			return sig, acct, err
		}
	}
	if !fromPolicy || set["expiry"] {
		if expiry, err = parseWhen("expiry", f.expiry, now); err != nil {
			return sig, acct, err
		}
		if !expiry.After(now) {
			return sig, acct, usagef("--expiry %s is not in the future", f.expiry)
		}
	}
	var ip sas.IPRange
	if f.ip != "" {
		if ip, err = parseIP(f.ip); err != nil {
			return sig, acct, err
		}
	}
	if f.account {
		for _, n := range []string{"partition", "start-pk", "end-pk", "start-rk", "end-rk", "policy"} {
			if set[n] {
				return sig, acct, usagef("--%s is for a table SAS: an account SAS covers every table", n)
			}
		}
		acct = sas.AccountSignature{Start: start, Expiry: expiry, IP: ip}
		if acct.Permissions, err = accountBits("permissions", f.perms, sas.AccountProcess); err == nil {
			acct.ResourceTypes, err = accountBits("resource-types", f.resources, sas.ResourceObject)
		}
		return sig, acct, err
	}
	if set["resource-types"] {
		return sig, acct, usagef("--resource-types is for --account")
	}
	sig = sas.TableSignature{Table: pos[0], Start: start, Expiry: expiry, IP: ip, Identifier: f.policy,
		StartPartitionKey: f.spk, EndPartitionKey: f.epk, StartRowKey: f.srk, EndRowKey: f.erk}
	if f.partition != "" {
		if f.spk != "" || f.epk != "" {
			return sig, acct, usagef("--partition is --start-pk and --end-pk both: give one or the others")
		}
		sig.StartPartitionKey, sig.EndPartitionKey = f.partition, f.partition
	}
	if !fromPolicy || set["permissions"] {
		if sig.Permissions, err = sas.ParsePermissions(f.perms); err != nil {
			return sig, acct, usagef("--permissions: %v", err)
		}
	}
	return sig, acct, nil
}
