package table

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"math"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/wire"
)

// ListTablesOptions are the options of Service.Tables; nil means all tables.
type ListTablesOptions struct {
	// Prefix keeps only tables whose name starts with it. It is sent as a
	// range (TableName ge 'p' and TableName lt 'q'), which the service
	// answers from its index of table names.
	Prefix string
	// PageSize is the number of names per request (on Table Storage at
	// most 1,000, its largest page); 0 means the service's default.
	PageSize int32
}

// Tables lists the account's table names in the service's order (sorted by
// name), following the service's continuation page by page. Breaking out of
// the loop stops fetching. An error ends the sequence.
func (s *Service) Tables(ctx context.Context, o *ListTablesOptions) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if err := s.ready(); err != nil {
			yield("", err)
			return
		}
		var opts aztables.ListTablesOptions
		if o != nil {
			max := s.conn.Profile().MaxPageSize // 0: none documented
			if o.PageSize < 0 || (max > 0 && int(o.PageSize) > max) {
				yield("", fmt.Errorf("%w: PageSize %d, want 0 to %d", ErrInvalidOptions, o.PageSize, cmp.Or(max, math.MaxInt32)))
				return
			}
			if o.PageSize > 0 {
				opts.Top = &o.PageSize
			}
			if o.Prefix != "" {
				f := prefixFilter("TableName", o.Prefix)
				opts.Filter = &f
			}
		}
		pager := s.raw.NewListTablesPager(&opts)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				yield("", MapError("list tables", err))
				return
			}
			for _, t := range page.Tables {
				if t == nil || t.Name == nil {
					continue
				}
				if !yield(*t.Name, nil) {
					return
				}
			}
		}
	}
}

// prefixFilter is the range that holds exactly the strings starting with
// prefix, in the service's (UTF-16) order.
func prefixFilter(prop, prefix string) string {
	end, ok := wire.PrefixEnd(prefix)
	if !ok {
		return prop + " ge " + wire.QuoteString(prefix)
	}
	return prop + " ge " + wire.QuoteString(prefix) + " and " + prop + " lt " + wire.QuoteString(end)
}

// Properties reads the service's settings: CORS rules, logging and hour and
// minute metrics (aztables' own types). Cosmos DB has none: ErrUnsupported.
func (s *Service) Properties(ctx context.Context) (aztables.ServiceProperties, error) {
	if err := s.has("get service properties", "service properties", func(p *backend.Profile) bool { return p.ServiceProperties }); err != nil {
		return aztables.ServiceProperties{}, err
	}
	resp, err := s.raw.GetProperties(ctx, nil)
	if err != nil {
		return aztables.ServiceProperties{}, MapError("get service properties", err)
	}
	return resp.ServiceProperties, nil
}

// SetProperties replaces the service's settings. Parts left nil (Cors,
// Logging, HourMetrics, MinuteMetrics) are kept as they are; an empty
// non-nil Cors slice removes every rule. The service may take up to 30
// seconds to apply a change. Cosmos DB has none: ErrUnsupported.
func (s *Service) SetProperties(ctx context.Context, p aztables.ServiceProperties) error {
	if err := s.has("set service properties", "service properties", func(p *backend.Profile) bool { return p.ServiceProperties }); err != nil {
		return err
	}
	_, err := s.raw.SetProperties(ctx, p, nil)
	return MapError("set service properties", err)
}

// Stats is the geo-replication state of an account with a readable
// secondary (RA-GRS, RA-GZRS).
type Stats struct {
	// Status is live, bootstrap (the secondary is being set up) or
	// unavailable.
	Status aztables.GeoReplicationStatus
	// LastSyncTime: every write before it is readable on the secondary;
	// later writes may or may not be. The zero time when unknown (during
	// bootstrap). The service gives no bound on the lag.
	LastSyncTime time.Time
}

// Stats reads the geo-replication status and last sync time. The service
// answers it on the secondary endpoint only, so it is sent there (see
// Options.SecondaryEndpoint); an account without a readable secondary
// answers an error. Azurite answers it on its path-style secondary
// (<account>-secondary), always live. Cosmos DB has no stats:
// ErrUnsupported.
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	if err := s.has("get service stats", "service stats", func(p *backend.Profile) bool { return p.ServiceStats }); err != nil {
		return Stats{}, err
	}
	resp, err := s.raw.GetStatistics(ctx, nil)
	if err != nil {
		return Stats{}, MapError("get service stats", err)
	}
	var st Stats
	if g := resp.GeoReplication; g != nil {
		if g.Status != nil {
			st.Status = *g.Status
		}
		if g.LastSyncTime != nil {
			st.LastSyncTime = g.LastSyncTime.UTC()
		}
	}
	return st, nil
}

// AccessPolicy is a stored access policy: a named set of permissions and
// times kept on a table, which a service SAS can name (package sas signs
// those) so that revoking the policy revokes every SAS that uses it.
// Fields left zero are not stored; the SAS must carry them then (Azurite
// refuses a policy that lacks any of Permission, Start and Expiry).
type AccessPolicy struct {
	// ID is what the SAS names in si: 1 to 64 characters.
	ID string
	// Permission is the service's letters in order, a subset of "raud"
	// (read/query, add, update, delete); empty for none stored.
	Permission string
	// Start and Expiry bound every SAS that uses the policy; zero for
	// unset. Stored in UTC, to the second.
	Start, Expiry time.Time
}

// MaxAccessPolicies is the service's limit of stored access policies per table.
const MaxAccessPolicies = 5

// AccessPolicy returns the stored access policies of the named table, in
// the service's order. Cosmos DB has none: ErrUnsupported.
func (s *Service) AccessPolicy(ctx context.Context, tableName string) ([]AccessPolicy, error) {
	if err := s.has("get access policy", "stored access policies", func(p *backend.Profile) bool { return p.AccessPolicies }); err != nil {
		return nil, err
	}
	if err := validateTableName(tableName); err != nil {
		return nil, err
	}
	return GetAccessPolicy(ctx, s.Client(tableName))
}

// SetAccessPolicy replaces the stored access policies of the named table
// with ps (nil or empty removes them all). The service replaces the whole
// list and has no concurrency check: read, change and write it from one
// place. It may take up to 30 seconds to apply a change. Cosmos DB has no
// stored access policies: ErrUnsupported.
func (s *Service) SetAccessPolicy(ctx context.Context, tableName string, ps []AccessPolicy) error {
	if err := s.has("set access policy", "stored access policies", func(p *backend.Profile) bool { return p.AccessPolicies }); err != nil {
		return err
	}
	if err := validateTableName(tableName); err != nil {
		return err
	}
	return SetAccessPolicy(ctx, s.Client(tableName), ps)
}

// GetAccessPolicy is Service.AccessPolicy for an aztables client you
// already have (package sas builds on it). A client made by tablekit
// (Service.Client, Table.Client, ClientOptions) refuses it on Cosmos DB
// with ErrUnsupported before sending; for any other client tablekit cannot
// tell the backend (aztables does not expose the endpoint), and Cosmos DB
// answers with an error.
func GetAccessPolicy(ctx context.Context, c *aztables.Client) ([]AccessPolicy, error) {
	if c == nil {
		return nil, errNilClient
	}
	resp, err := c.GetAccessPolicy(ctx, nil)
	if err != nil {
		return nil, MapError("get access policy", err)
	}
	out := make([]AccessPolicy, 0, len(resp.SignedIdentifiers))
	for _, si := range resp.SignedIdentifiers {
		if si == nil || si.ID == nil {
			continue
		}
		p := AccessPolicy{ID: *si.ID}
		if ap := si.AccessPolicy; ap != nil {
			if ap.Permission != nil {
				p.Permission = *ap.Permission
			}
			if ap.Start != nil {
				p.Start = ap.Start.UTC()
			}
			if ap.Expiry != nil {
				p.Expiry = ap.Expiry.UTC()
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// SetAccessPolicy is Service.SetAccessPolicy for an aztables client you
// already have. More than MaxAccessPolicies, an empty or over-long ID, or
// an Expiry not after Start is ErrInvalidOptions before any request; on
// Cosmos DB, ErrUnsupported as for GetAccessPolicy.
func SetAccessPolicy(ctx context.Context, c *aztables.Client, ps []AccessPolicy) error {
	if c == nil {
		return errNilClient
	}
	if len(ps) > MaxAccessPolicies {
		return fmt.Errorf("%w: %d stored access policies, a table holds at most %d", ErrInvalidOptions, len(ps), MaxAccessPolicies)
	}
	acl := make([]*aztables.SignedIdentifier, len(ps))
	for i, p := range ps {
		if len(p.ID) < 1 || len(p.ID) > 64 {
			return fmt.Errorf("%w: access policy %d: ID must have 1 to 64 characters", ErrInvalidOptions, i)
		}
		if !p.Start.IsZero() && !p.Expiry.IsZero() && !p.Expiry.After(p.Start) {
			return fmt.Errorf("%w: access policy %q: Expiry must be after Start", ErrInvalidOptions, p.ID)
		}
		id := p.ID
		ap := &aztables.AccessPolicy{}
		if p.Permission != "" {
			perm := p.Permission
			ap.Permission = &perm
		}
		if !p.Start.IsZero() {
			t := p.Start.UTC().Truncate(time.Second)
			ap.Start = &t
		}
		if !p.Expiry.IsZero() {
			t := p.Expiry.UTC().Truncate(time.Second)
			ap.Expiry = &t
		}
		acl[i] = &aztables.SignedIdentifier{ID: &id, AccessPolicy: ap}
	}
	_, err := c.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{TableACL: acl})
	return MapError("set access policy", err)
}

// SharedKey returns the account name and key the service signs requests
// with, so that a SAS can be signed for the same account without parsing
// the connection string again (sas.ServiceCredential). ok is false for a
// service made from a SAS or a token credential. Never log the key.
func (s *Service) SharedKey() (account, key string, ok bool) {
	if s == nil {
		return "", "", false
	}
	return s.account, s.key, s.key != ""
}

// has reports a zero Service, or a call its backend lacks: op needs what,
// which a backend has when ok says so of its profile.
func (s *Service) has(op, what string, ok func(*backend.Profile) bool) error {
	if err := s.ready(); err != nil {
		return err
	}
	if p := s.conn.Profile(); !ok(p) {
		return notSupported(*p, op, what)
	}
	return nil
}
