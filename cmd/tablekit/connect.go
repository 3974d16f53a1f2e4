package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

// Environment variables read when the flags are not given.
const (
	envConnection       = "TABLEKIT_CONNECTION_STRING"
	envTargetConnection = "TABLEKIT_TARGET_CONNECTION_STRING"
)

// endpointFlags say how to reach one account. The source uses plain names;
// copy's target the same names with "to-" in front.
type endpointFlags struct {
	prefix, envVar           string
	connString, accountURL   string
	sas                      string
	registered, allowMissing bool
	// rate is the command's --rate, nil when it has none.
	rate *rateValue
}

// given says whether the flags or the environment name an account.
func (f *endpointFlags) given(e *env) bool {
	return f.connString != "" || f.accountURL != "" || e.getenv(f.envVar) != ""
}

func (f *endpointFlags) register(fs *flag.FlagSet) {
	p := f.prefix
	who := "the account"
	if p != "" {
		who = "the target account (default: the source account)"
	}
	fs.StringVar(&f.connString, p+"connection-string", "", "connection string of "+who+"; default $"+f.envVar)
	fs.StringVar(&f.accountURL, p+"account-url", "", "table service URL of "+who+", e.g. https://ACCOUNT.table.core.windows.net; with a SAS in the URL or --"+p+"sas, else Entra ID (az login)")
	fs.StringVar(&f.sas, p+"sas", "", "account SAS token for --"+p+"account-url")
	f.registered = true
}

func sourceFlags() *endpointFlags { return &endpointFlags{envVar: envConnection} }

// targetFlags are copy's destination; when none is given, the target is
// the source account.
func targetFlags() *endpointFlags {
	return &endpointFlags{prefix: "to-", envVar: envTargetConnection, allowMissing: true}
}

// errNoTarget means no target was given: use the source account.
var errNoTarget = errors.New("no target account given")

// connection is a resolved account: the service, and what the sas command
// needs (the parsed connection string, when there was one).
type connection struct {
	svc     *table.Service
	conn    table.ConnectionString // zero unless a connection string was used
	hasConn bool
	retries *retryCount
	// policy is the retry policy of every request, with the hook that
	// counts retries; pass it to batch.WriteOptions so that bulk writes
	// count theirs too.
	policy *retry.Policy
}

// retryCount counts a run's retries, and how many of them followed
// throttling (tablekit.ErrThrottled: Cosmos DB's 429, Table Storage's 503
// ServerBusy and 500 OperationTimedOut), for the progress line and the
// summary.
type retryCount struct {
	all, throttled atomic.Int64
	rate           rateNow      // the limiter's, with --rate
	sent           sentRequests // the requests made, for --dry-run
}

// count is a retry policy's OnRetry hook.
func (c *retryCount) count(ev retry.Event) {
	c.all.Add(1)
	if errors.Is(ev.Err, tablekit.ErrThrottled) {
		c.throttled.Add(1)
	}
}

// open resolves the flags (then the environment variable) to a service.
// Every request's retries are counted in retries for the final summary.
func (f *endpointFlags) open(e *env, retries *retryCount) (*connection, error) {
	policy := &retry.Policy{OnRetry: retries.count}
	opts := &table.Options{Retry: policy, Rate: f.rate.options(retries)}
	opts.Azcore.PerCallPolicies = retries.counted()
	c := &connection{retries: retries, policy: policy}
	p := f.prefix
	var err error
	switch {
	case f.connString != "" && f.accountURL != "":
		return nil, usagef("give --%sconnection-string or --%saccount-url, not both", p, p)
	case f.sas != "" && f.accountURL == "":
		return nil, usagef("--%ssas needs --%saccount-url", p, p)
	case f.accountURL != "":
		u, perr := url.Parse(f.accountURL)
		if perr != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, usagef("--%saccount-url: not an http(s) URL", p)
		}
		query := u.RawQuery
		if f.sas != "" {
			if query != "" {
				return nil, usagef("--%saccount-url already holds a SAS; do not also give --%ssas", p, p)
			}
			query = strings.TrimPrefix(f.sas, "?")
		}
		u.RawQuery, u.Fragment = "", ""
		if query != "" {
			c.svc, err = table.NewServiceWithSAS(u.String()+"?"+query, opts)
			if err != nil {
				return nil, notSent("--"+p+"account-url", err)
			}
			break
		}
		cred, cerr := azidentity.NewDefaultAzureCredential(nil)
		if cerr != nil {
			return nil, fmt.Errorf("entra ID credentials: %w", cerr)
		}
		c.svc, err = table.NewServiceWithToken(u.String(), cred, opts)
	default:
		cs, from := f.connString, "--"+p+"connection-string"
		if cs == "" {
			cs, from = e.getenv(f.envVar), "$"+f.envVar
		}
		if cs == "" {
			if f.allowMissing {
				return nil, errNoTarget
			}
			return nil, usagef("no account: give --%sconnection-string, set %s, or give --%saccount-url", p, f.envVar, p)
		}
		c.conn, err = table.ParseConnectionString(cs)
		if err != nil {
			return nil, notSent(from, err)
		}
		c.hasConn = true
		if c.svc, err = table.NewService(cs, opts); err != nil {
			return nil, notSent(from, err)
		}
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// notSent is the error of a connection that could not be made from what
// flag gave (a malformed connection string or SAS): a usage error, since
// nothing was sent, keeping the library's error. The library's errors
// never repeat the string, so neither key nor signature is shown.
func notSent(flag string, err error) error {
	return &usageCause{flag + ": " + strings.TrimPrefix(err.Error(), "tablekit: "), err}
}

// parsedConnString is the connection string the flags (then the
// environment variable) give, parsed, without opening the account; nil
// when there is none or it does not parse. The account key of a
// connection string signs requests to a blob container of the same
// account.
func (f *endpointFlags) parsedConnString(e *env) *table.ConnectionString {
	s := f.connString
	if s == "" {
		s = e.getenv(f.envVar)
	}
	if s == "" {
		return nil
	}
	p, err := table.ParseConnectionString(s)
	if err != nil {
		return nil
	}
	return &p
}
