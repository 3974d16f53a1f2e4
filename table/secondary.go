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

	"github.com/tablekit/tablekit/retry"
)

// LocationMode chooses where reads go on an account with a readable
// geo-secondary (RA-GRS or RA-GZRS), as the LocationMode of Microsoft's
// older .NET SDK did. Writes always go to the primary.
//
// The secondary is a copy that lags behind the primary, typically by
// minutes, with no bound the service guarantees: a read from it may miss
// recent writes, and an entity read there may be older than one read just
// before from the primary. Service.Stats gives LastSyncTime, before which
// every write is on the secondary. Use it for reads that prefer a stale
// answer to none.
type LocationMode int

const (
	// PrimaryOnly sends every request to the primary (the default).
	PrimaryOnly LocationMode = iota
	// PrimaryThenSecondary sends point gets and queries to the primary and,
	// when it fails with an error the retry policy would retry (503, 500,
	// timeouts, refused connections: retry.IsRetryable), sends the same
	// read to the secondary at once, within the same attempt.
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

// Location is the endpoint that served a read.
type Location int

const (
	// Primary is the account's primary endpoint.
	Primary Location = iota
	// Secondary is the geo-secondary: the data may be behind the primary.
	Secondary
)

func (l Location) String() string {
	if l == Secondary {
		return "Secondary"
	}
	return "Primary"
}

// ReadLocations counts the successful read responses (entities and query
// pages) that the requests made with its context got from each endpoint.
// Pass WithReadLocations(ctx, &rl) to a query's iterator or to any read to
// learn whether what came back may be stale. Safe for concurrent use.
type ReadLocations struct {
	primary, secondary atomic.Int64
}

// Primary is the number of read responses served by the primary.
func (r *ReadLocations) Primary() int64 { return r.primary.Load() }

// Secondary is the number of read responses served by the secondary.
func (r *ReadLocations) Secondary() int64 { return r.secondary.Load() }

func (r *ReadLocations) add(l Location) {
	if l == Secondary {
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
// after the credential policy: a Shared Key signature covers the path, not
// the host, so the signed request is valid on the secondary host as well.
type locationPolicy struct {
	mode      LocationMode
	secondary *url.URL // explicit secondary endpoint; nil derives it from the host
}

func newLocationPolicy(o *Options) policy.Policy {
	p := locationPolicy{mode: o.Location}
	if o.SecondaryEndpoint != "" {
		if u, err := url.Parse(o.SecondaryEndpoint); err == nil && u.Host != "" {
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
	case !isEntityRead(r) || p.mode == PrimaryOnly:
		return req.Next()
	}
	rl, _ := r.Context().Value(readLocationsKey{}).(*ReadLocations)
	u := p.secondaryURL(r.URL)
	if p.mode == SecondaryOnly {
		if u == nil {
			return nil, fmt.Errorf("%w: SecondaryOnly, but no secondary endpoint is known for %s (set Options.SecondaryEndpoint)", ErrInvalidOptions, r.URL.Host)
		}
		resp, err := sendTo(req, u)
		record(rl, resp, err, Secondary)
		return resp, err
	}
	resp, err := req.Next()
	if u == nil || !failedRetryably(resp, err) || r.Context().Err() != nil {
		record(rl, resp, err, Primary)
		return resp, err
	}
	if resp != nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err = sendTo(req, u)
	record(rl, resp, err, Secondary)
	return resp, err
}

func record(rl *ReadLocations, resp *http.Response, err error, l Location) {
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

// sendTo sends a copy of the request to another scheme and host, keeping
// the path, the query and the signed headers.
func sendTo(req *policy.Request, u *url.URL) (*http.Response, error) {
	c := req.Clone(req.Raw().Context())
	r := c.Raw()
	r.URL.Scheme, r.URL.Host, r.Host = u.Scheme, u.Host, ""
	return c.Next()
}

// secondaryURL is the explicit secondary endpoint, or the service's
// convention <account>-secondary.table.<suffix> for the primary's host.
func (p locationPolicy) secondaryURL(primary *url.URL) *url.URL {
	if p.secondary != nil {
		return p.secondary
	}
	host := derivedSecondaryHost(primary)
	if host == "" {
		return nil
	}
	return &url.URL{Scheme: primary.Scheme, Host: host}
}

// derivedSecondaryHost applies the storage service's naming rule; other
// hosts (Azurite, Cosmos DB, custom domains) have no known secondary.
func derivedSecondaryHost(u *url.URL) string {
	account, rest, ok := strings.Cut(u.Hostname(), ".")
	if !ok || !strings.HasPrefix(rest, "table.") || strings.Contains(rest, "cosmos") || strings.HasSuffix(account, "-secondary") {
		return ""
	}
	host := account + "-secondary." + rest
	if port := u.Port(); port != "" {
		host = net.JoinHostPort(host, port)
	}
	return host
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
	q := r.URL.Query()
	return r.Method == http.MethodGet && q.Get("restype") == "service" && q.Get("comp") == "stats"
}

// checkLocation validates Options.Location and the secondary endpoint for a
// service whose primary is endpoint; account and key allow http for the
// emulator's account as the primary does.
func checkLocation(endpoint, account, key string, o *Options) error {
	if o == nil {
		return nil
	}
	if o.Location < PrimaryOnly || o.Location > SecondaryOnly {
		return fmt.Errorf("%w: Location %v", ErrInvalidOptions, o.Location)
	}
	if o.SecondaryEndpoint != "" {
		if err := checkKeyedScheme(o.SecondaryEndpoint, account, key, o); err != nil {
			return err
		}
		p, err1 := url.Parse(endpoint)
		s, err2 := url.Parse(strings.TrimSuffix(o.SecondaryEndpoint, "/"))
		if err1 == nil && err2 == nil && strings.TrimSuffix(p.Path, "/") != s.Path {
			return fmt.Errorf("%w: SecondaryEndpoint must have the primary's path %q (only the host differs)", ErrInvalidOptions, p.Path)
		}
		return nil
	}
	if o.Location != PrimaryOnly {
		u, err := url.Parse(endpoint)
		if err != nil || derivedSecondaryHost(u) == "" {
			return fmt.Errorf("%w: Location %v needs a secondary endpoint: TableSecondaryEndpoint in the connection string or Options.SecondaryEndpoint", ErrInvalidOptions, o.Location)
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

// servedFrom records in *where the endpoint that served a Get.
func servedFrom(ctx context.Context, where *Location) (context.Context, func()) {
	if where == nil {
		return ctx, func() {}
	}
	var rl ReadLocations
	return WithReadLocations(ctx, &rl), func() {
		*where = Primary
		if rl.Secondary() > 0 {
			*where = Secondary
		}
	}
}
