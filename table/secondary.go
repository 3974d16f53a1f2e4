package table

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/retry"
)

// LocationMode chooses where reads go on an account with a readable
// geo-secondary (RA-GRS, RA-GZRS); writes always go to the primary, and the
// secondary lags (the package documentation says by how much).
type LocationMode int

const (
	// PrimaryOnly sends every request to the primary (the default).
	PrimaryOnly LocationMode = iota
	// PrimaryThenSecondary sends point gets and queries to the primary and,
	// when it fails retryably (retry.IsRetryable), the same read to the
	// secondary at once, within the same attempt.
	PrimaryThenSecondary
	// SecondaryOnly sends point gets and queries to the secondary only, for
	// example to keep reporting load off the primary.
	SecondaryOnly
)

func (m LocationMode) String() string {
	switch m {
	case PrimaryOnly:
		return "PrimaryOnly"
	case PrimaryThenSecondary:
		return "PrimaryThenSecondary"
	case SecondaryOnly:
		return "SecondaryOnly"
	}
	return fmt.Sprintf("LocationMode(%d)", int(m))
}

// location is the endpoint that served a read.
type location int

const (
	atPrimary   location = iota // the account's primary endpoint
	atSecondary                 // the geo-secondary: the data may be behind
)

// ReadLocations counts, per endpoint, the successful read responses of the
// requests made with the context from WithReadLocations(ctx, &rl), to tell
// whether what came back may be stale. Safe for concurrent use.
type ReadLocations struct {
	primary, secondary atomic.Int64
}

// Primary is the number of read responses served by the primary.
func (r *ReadLocations) Primary() int64 { return r.primary.Load() }

// Secondary is the number of read responses served by the secondary.
func (r *ReadLocations) Secondary() int64 { return r.secondary.Load() }

func (r *ReadLocations) add(l location) {
	if l == atSecondary {
		r.secondary.Add(1)
	} else {
		r.primary.Add(1)
	}
}

type readLocationsKey struct{}

// WithReadLocations returns a context whose read requests are counted in r.
func WithReadLocations(ctx context.Context, r *ReadLocations) context.Context {
	return context.WithValue(ctx, readLocationsKey{}, r)
}

// locationPolicy routes reads by LocationMode. It is a per-retry policy, so
// every attempt of the retry policy starts again at the primary, and it runs
// after the credential policy: a Shared Key signature covers the primary
// account's resource, which is what the service (and Azurite) check on the
// secondary too, so the signed request is valid there as it is.
type locationPolicy struct {
	mode      LocationMode
	secondary *url.URL     // explicit secondary endpoint; nil derives it
	kind      backend.Kind // Options.Backend: whether a secondary can exist
}

func newLocationPolicy(o *Options) policy.Policy {
	k, _ := o.kind() // checked by the constructors (checkLocation)
	p := locationPolicy{mode: o.Location, kind: k}
	if o.SecondaryEndpoint != "" {
		if u, err := url.Parse(strings.TrimSuffix(o.SecondaryEndpoint, "/")); err == nil && u.Host != "" {
			p.secondary = u
		}
	}
	return p
}

func (p locationPolicy) Do(req *policy.Request) (*http.Response, error) {
	r := req.Raw()
	switch {
	case isStatsRequest(r):
		// The service answers stats on the secondary endpoint only.
		if u := p.secondaryURL(r.URL); u != nil {
			return sendTo(req, u)
		}
		return req.Next()
	case !isEntityRead(r):
		return req.Next()
	}
	rl, _ := r.Context().Value(readLocationsKey{}).(*ReadLocations)
	if p.mode == PrimaryOnly {
		resp, err := req.Next()
		record(rl, resp, err, atPrimary)
		return resp, err
	}
	u := p.secondaryURL(r.URL)
	if p.mode == SecondaryOnly {
		if u == nil {
			return nil, errmap.Invalidf("", "Location", "SecondaryOnly, but no secondary endpoint is known for %s (set Options.SecondaryEndpoint)", r.URL.Host)
		}
		resp, err := sendTo(req, u)
		record(rl, resp, err, atSecondary)
		return resp, err
	}
	resp, err := req.Next()
	if u == nil || !failedRetryably(resp, err) || r.Context().Err() != nil {
		record(rl, resp, err, atPrimary)
		return resp, err
	}
	if resp != nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err = sendTo(req, u)
	record(rl, resp, err, atSecondary)
	return resp, err
}

func record(rl *ReadLocations, resp *http.Response, err error, l location) {
	if rl != nil && err == nil && resp != nil && resp.StatusCode < 400 {
		rl.add(l)
	}
}

func failedRetryably(resp *http.Response, err error) bool {
	if err != nil {
		return retry.IsRetryable(err)
	}
	return resp.StatusCode >= 400 && retry.IsRetryable(runtime.NewResponseError(resp))
}

// sendTo sends a copy of the request to the secondary endpoint u, keeping
// the query and the signed headers. On the service only the host changes;
// on a path-style endpoint (Azurite's <host>/<account>-secondary) the
// account's path segment does too: the rest of the path is kept.
func sendTo(req *policy.Request, u *url.URL) (*http.Response, error) {
	c := req.Clone(req.Raw().Context())
	r := c.Raw()
	r.URL.Scheme, r.URL.Host, r.Host = u.Scheme, u.Host, ""
	if account, ok := strings.CutSuffix(u.Path, secondarySuffix); ok {
		esc := r.URL.EscapedPath()
		if rest, ok := strings.CutPrefix(esc, account); ok && (rest == "" || rest[0] == '/') {
			path, err := url.PathUnescape(u.Path + rest)
			if err != nil {
				return nil, err
			}
			r.URL.Path, r.URL.RawPath = path, u.Path+rest
		}
	}
	return c.Next()
}

// secondarySuffix ends the name of an account's secondary: the host's first
// label on the service, the path's first segment on Azurite.
const secondarySuffix = "-secondary"

// secondaryURL is the explicit secondary endpoint, or the one derived from
// the primary's URL (derivedSecondary).
func (p locationPolicy) secondaryURL(primary *url.URL) *url.URL {
	if p.secondary != nil {
		return p.secondary
	}
	return derivedSecondary(primary, p.kind)
}

// derivedSecondary applies the naming rule of the storage service,
// <account>-secondary.table.<suffix>, or of Azurite's path-style accounts,
// <host>/<account>-secondary (its documented RA-GRS form); custom domains
// and a backend without a secondary location (Cosmos DB: kind, or the
// host) have none: nil.
func derivedSecondary(u *url.URL, kind backend.Kind) *url.URL {
	if prof, err := backend.For(u.String(), kind); err != nil || !prof.SecondaryLocation {
		return nil
	}
	if account, ok := pathStyleAccount(u); ok {
		if strings.HasSuffix(account, secondarySuffix) {
			return nil
		}
		return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/" + account + secondarySuffix}
	}
	account, rest, ok := strings.Cut(u.Hostname(), ".")
	if !ok || !strings.HasPrefix(rest, "table.") || strings.HasSuffix(account, secondarySuffix) {
		return nil
	}
	host := account + secondarySuffix + "." + rest
	if port := u.Port(); port != "" {
		host = net.JoinHostPort(host, port)
	}
	return &url.URL{Scheme: u.Scheme, Host: host}
}

// pathStyleAccount is the account named by the first path segment of a
// URL in Azurite's path style: an IP address or a host name without a dot
// (localhost, a container's name), as Azurite itself tells the styles
// apart.
func pathStyleAccount(u *url.URL) (string, bool) {
	host := u.Hostname()
	if net.ParseIP(host) == nil && strings.Contains(host, ".") {
		return "", false
	}
	account, _, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	return account, account != ""
}

// isEntityRead: a point get or a query (GET /<table>(...) or /<table>()),
// not a table listing (/Tables), an ACL read (?comp=acl) or a service
// request (the account root).
func isEntityRead(r *http.Request) bool {
	if r.Method != http.MethodGet || r.URL.Query().Has("comp") {
		return false
	}
	last := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
	return last != "" && last != "Tables" && !strings.HasPrefix(last, "Tables(")
}

func isStatsRequest(r *http.Request) bool {
	if r.Method != http.MethodGet || r.URL.RawQuery == "" {
		return false // every data request passes here: parse no query in vain
	}
	q := r.URL.Query()
	return q.Get("restype") == "service" && q.Get("comp") == "stats"
}

// checkLocation validates Options.Backend, Options.Location and the
// secondary endpoint for a service whose primary is endpoint; account and
// key allow http for the emulator's account as the primary does. Every
// constructor calls it before it builds anything.
func checkLocation(endpoint, account, key string, o *Options) error {
	if o == nil {
		return nil
	}
	if err := o.Rate.check(); err != nil {
		return err
	}
	prof, err := o.profile(endpoint)
	if err != nil {
		return err
	}
	if o.Location < PrimaryOnly || o.Location > SecondaryOnly {
		return errmap.Invalidf("", "Location", "unknown value %v", o.Location)
	}
	if o.Location != PrimaryOnly && !prof.SecondaryLocation {
		return notSupported(prof, "Options.Location "+o.Location.String(), "secondary location")
	}
	if o.SecondaryEndpoint != "" {
		if err := checkKeyedScheme(o.SecondaryEndpoint, account, key, o); err != nil {
			return err
		}
		p, err1 := url.Parse(endpoint)
		s, err2 := url.Parse(strings.TrimSuffix(o.SecondaryEndpoint, "/"))
		if err1 == nil && err2 == nil {
			primary := strings.TrimSuffix(p.Path, "/")
			if s.Path != primary && (primary == "" || s.Path != primary+secondarySuffix) {
				return errmap.Invalidf("", "SecondaryEndpoint", "must have the primary's path %q, or %q (Azurite's path-style secondary)", primary, primary+secondarySuffix)
			}
		}
		return nil
	}
	if o.Location != PrimaryOnly {
		u, err := url.Parse(endpoint)
		if err != nil || derivedSecondary(u, prof.Kind) == nil {
			return errmap.Invalidf("", "Location", "%v needs a secondary endpoint: TableSecondaryEndpoint in the connection string or Options.SecondaryEndpoint", o.Location)
		}
	}
	return nil
}

// withSecondary returns o with SecondaryEndpoint set from a connection
// string, unless the caller set one.
func withSecondary(o *Options, secondary string) *Options {
	if secondary == "" || (o != nil && o.SecondaryEndpoint != "") {
		return o
	}
	var c Options
	if o != nil {
		c = *o
	}
	c.SecondaryEndpoint = secondary
	return &c
}
