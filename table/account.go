package table

import (
	"cmp"
	"context"
	"iter"
	"math"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/errmap"
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
			max := s.core().Conn().Profile().MaxPageSize // 0: none documented
			if o.PageSize < 0 || (max > 0 && int(o.PageSize) > max) {
				yield("", errmap.Invalidf("", "PageSize", "%d, want 0 to %d", o.PageSize, cmp.Or(max, math.MaxInt32)))
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
		pager := s.core().Raw().NewListTablesPager(&opts)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				yield("", errmap.Map("list tables", err))
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
// minute metrics (aztables' own types). Cosmos DB has none: tablekit.ErrUnsupported.
func (s *Service) Properties(ctx context.Context) (aztables.ServiceProperties, error) {
	if err := s.has("get service properties", "service properties", func(p *backend.Profile) bool { return p.ServiceProperties }); err != nil {
		return aztables.ServiceProperties{}, err
	}
	resp, err := s.core().Raw().GetProperties(ctx, nil)
	if err != nil {
		return aztables.ServiceProperties{}, errmap.Map("get service properties", err)
	}
	return resp.ServiceProperties, nil
}

// SetProperties replaces the service's settings: parts left nil are kept as
// they are, and an empty non-nil Cors slice removes every rule. Cosmos DB
// has none: tablekit.ErrUnsupported.
func (s *Service) SetProperties(ctx context.Context, p aztables.ServiceProperties) error {
	if err := s.has("set service properties", "service properties", func(p *backend.Profile) bool { return p.ServiceProperties }); err != nil {
		return err
	}
	_, err := s.core().Raw().SetProperties(ctx, p, nil)
	return errmap.Map("set service properties", err)
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

// Stats reads the geo-replication status and last sync time from the
// secondary endpoint, the only one that answers it; an account without a
// readable secondary answers an error. Cosmos DB: tablekit.ErrUnsupported.
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	if err := s.has("get service stats", "service stats", func(p *backend.Profile) bool { return p.ServiceStats }); err != nil {
		return Stats{}, err
	}
	resp, err := s.core().Raw().GetStatistics(ctx, nil)
	if err != nil {
		return Stats{}, errmap.Map("get service stats", err)
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

// has reports a zero Service, or a call its backend lacks: op needs what,
// which a backend has when ok says so of its profile.
func (s *Service) has(op, what string, ok func(*backend.Profile) bool) error {
	if err := s.ready(); err != nil {
		return err
	}
	if p := s.core().Conn().Profile(); !ok(p) {
		return notSupported(*p, op, what)
	}
	return nil
}
