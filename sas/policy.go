package sas

import (
	"context"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/table"
)

// Policy is a stored access policy: a named set of permissions and times kept
// on the table. A TableSignature whose Identifier is the policy's ID takes
// those fields from the policy, and stops working when the policy is revoked
// or changed, which is the only way to withdraw a SAS before it expires
// short of rotating the account key.
//
// Fields left zero are not stored; the SAS must then carry them. A field
// must not be set in both the policy and the SAS.
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

func (p Policy) toACL() table.AccessPolicy {
	return table.AccessPolicy{ID: p.ID, Permission: p.Permissions.String(), Start: p.Start, Expiry: p.Expiry}
}

// GetPolicies returns the stored access policies of the client's table, in
// the service's order. It is a thin wrapper over table.GetAccessPolicy
// (Service.AccessPolicy is the same for a table.Service) that types the
// permissions; service errors are *table.ServiceError values, with the
// *azcore.ResponseError reachable through errors.As. Cosmos DB for Table
// has no stored access policies: a client tablekit made for it (from a
// table.Service, or with table.ClientOptions) refuses before sending, with
// an error matching table.ErrUnsupported; of another client tablekit cannot
// see the endpoint, and Cosmos DB answers with an error. The same holds for
// SetPolicy and RevokePolicy.
func GetPolicies(ctx context.Context, client *aztables.Client) ([]Policy, error) {
	acl, err := table.GetAccessPolicy(ctx, client)
	if err != nil {
		return nil, fmt.Errorf("sas: get stored access policies: %w", err)
	}
	out := make([]Policy, 0, len(acl))
	for _, ap := range acl {
		p := Policy{ID: ap.ID, Start: ap.Start, Expiry: ap.Expiry}
		if ap.Permission != "" {
			if p.Permissions, err = ParsePermissions(ap.Permission); err != nil {
				return nil, fmt.Errorf("sas: stored access policy %q: %w", p.ID, err)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// SetPolicy adds p to the table's stored access policies, or replaces the
// policy with the same ID, keeping the others. A table holds at most
// MaxPolicies; exceeding that is an ErrInvalid error before any write.
//
// The service replaces the whole list on each write and offers no
// concurrency check, so SetPolicy (a read, then a write) must not run
// concurrently with other changes to the same table's policies. The service
// may take up to 30 seconds to apply a change.
func SetPolicy(ctx context.Context, client *aztables.Client, p Policy) error {
	if err := p.validate(); err != nil {
		return err
	}
	current, err := GetPolicies(ctx, client)
	if err != nil {
		return err
	}
	next := make([]Policy, 0, len(current)+1)
	replaced := false
	for _, c := range current {
		if c.ID == p.ID {
			c, replaced = p, true
		}
		next = append(next, c)
	}
	if !replaced {
		next = append(next, p)
	}
	return setPolicies(ctx, client, next)
}

// RevokePolicy removes the stored access policy id from the table and keeps
// the others, so every SAS that names it stops working (on the service,
// within 30 seconds). An id the table does not have is ErrPolicyNotFound:
// a mistyped revocation must not pass silently.
func RevokePolicy(ctx context.Context, client *aztables.Client, id string) error {
	current, err := GetPolicies(ctx, client)
	if err != nil {
		return err
	}
	next := make([]Policy, 0, len(current))
	for _, c := range current {
		if c.ID != id {
			next = append(next, c)
		}
	}
	if len(next) == len(current) {
		return fmt.Errorf("%w: %q", ErrPolicyNotFound, id)
	}
	return setPolicies(ctx, client, next)
}

// setPolicies writes the whole list through table.SetAccessPolicy.
func setPolicies(ctx context.Context, client *aztables.Client, ps []Policy) error {
	if len(ps) > MaxPolicies {
		return invalid("policies", fmt.Sprintf("a table holds at most %d stored access policies", MaxPolicies))
	}
	acl := make([]table.AccessPolicy, len(ps))
	for i, p := range ps {
		acl[i] = p.toACL()
	}
	if err := table.SetAccessPolicy(ctx, client, acl); err != nil {
		return fmt.Errorf("sas: set stored access policies: %w", err)
	}
	return nil
}
