package sas

import (
	"context"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

// Policy is a stored access policy: a named set of permissions and times
// kept on a table. A TableSignature naming its ID takes those fields from
// it, and stops working when the policy is removed or changed.
type Policy struct {
	// ID is the identifier the SAS names in si: 1 to 64 characters.
	ID string
	// Permissions granted to every SAS that uses the policy; zero for none
	// stored.
	Permissions Permissions
	// Start and Expiry bound every SAS that uses the policy; zero for
	// unset. Stored in UTC, to the second.
	Start, Expiry time.Time
}

func (p Policy) validate() error {
	if err := checkIdentifier("Policy.ID", p.ID); err != nil {
		return err
	}
	if unknownBits(uint16(p.Permissions), len(tableLetters)) {
		return invalid("Policy.Permissions", "unknown permission bits")
	}
	_, _, err := window(p.Start, p.Expiry, 0, false, nil)
	return err
}

// Policies returns the stored access policies of the table, in the
// service's order. Cosmos DB for Table has none: tablekit.ErrUnsupported,
// with nothing sent.
func Policies(ctx context.Context, svc *table.Service, tableName string) ([]Policy, error) {
	c, err := aclClient(svc, tableName)
	if err != nil {
		return nil, err
	}
	resp, err := c.GetAccessPolicy(ctx, nil)
	if err != nil {
		return nil, errmap.Map("get stored access policies", err)
	}
	out := make([]Policy, 0, len(resp.SignedIdentifiers))
	for _, si := range resp.SignedIdentifiers {
		if si == nil || si.ID == nil {
			continue
		}
		p := Policy{ID: *si.ID}
		if ap := si.AccessPolicy; ap != nil {
			if ap.Permission != nil && *ap.Permission != "" {
				if p.Permissions, err = ParsePermissions(*ap.Permission); err != nil {
					return nil, fmt.Errorf("sas: stored access policy %q: %w", p.ID, err)
				}
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

// SetPolicies replaces the table's stored access policies with ps (nil or
// empty removes them all), at most MaxPolicies. Read, change and write them
// from one place: the service has no concurrency check.
func SetPolicies(ctx context.Context, svc *table.Service, tableName string, ps []Policy) error {
	if len(ps) > MaxPolicies {
		return invalid("policies", fmt.Sprintf("a table holds at most %d stored access policies", MaxPolicies))
	}
	acl := make([]*aztables.SignedIdentifier, len(ps))
	for i, p := range ps {
		if err := p.validate(); err != nil {
			return err
		}
		id := p.ID
		ap := &aztables.AccessPolicy{}
		if p.Permissions != 0 {
			perm := p.Permissions.String()
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
	c, err := aclClient(svc, tableName)
	if err != nil {
		return err
	}
	_, err = c.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{TableACL: acl})
	return errmap.Map("set stored access policies", err)
}

// aclClient is the aztables client of the table's ACL calls, on svc's
// pipeline: on a backend without stored access policies, that pipeline
// refuses them before sending (tablekit.ErrUnsupported).
func aclClient(svc *table.Service, tableName string) (*aztables.Client, error) {
	// The Service's own client: a zero Service has none (its Raw refuses
	// every call instead).
	if svc == nil || (*core.Service)(svc).Raw() == nil {
		return nil, invalid("service", "nil or zero Service (make it with table.NewService or a sibling)")
	}
	if bad := wire.CheckTableName(tableName); bad != nil {
		return nil, invalid("table name", bad.String())
	}
	return (*core.Service)(svc).Raw().NewClient(tableName), nil
}
