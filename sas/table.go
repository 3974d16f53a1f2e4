package sas

import (
	"net/url"
	"strings"
	"time"
)

// TableSignature describes a service SAS for one table; Sign turns it into
// query parameters. Zero optional fields are the safe defaults (https only,
// any address, the whole table). Sign does not modify the value.
type TableSignature struct {
	// Table is the table name; required. It is signed lowercased, as the
	// service canonicalizes it, and sent as tn.
	Table string

	// Permissions the token grants (sp). Required unless Identifier names a
	// stored access policy that supplies them.
	Permissions Permissions

	// Start is when the token becomes valid (st); converted to UTC and
	// truncated to the second. Zero means now minus ClockSkew, except with
	// an Identifier, where it stays unset so that the policy's start applies.
	Start time.Time
	// Expiry is when the token stops working (se), to the second in UTC.
	// Required unless Identifier names a policy that supplies it. Keep it
	// short: a SAS cannot be revoked unless it refers to a policy.
	Expiry time.Time
	// ClockSkew is how far an unset Start is backdated, for clocks that
	// disagree. Zero means DefaultClockSkew (15 minutes); a negative value
	// sends no st, so the token is valid from whenever the service gets it.
	ClockSkew time.Duration

	// StartPartitionKey, StartRowKey, EndPartitionKey and EndRowKey limit the
	// token to the entities in that key range, inclusive (spk, srk, epk, erk).
	// All are optional; a row key needs its partition key.
	StartPartitionKey string
	StartRowKey       string
	EndPartitionKey   string
	EndRowKey         string

	// IP restricts the addresses the token may be used from (sip).
	IP IPRange
	// Protocol is HTTPSOnly unless set; a zero value is sent as spr=https.
	Protocol Protocol
	// Identifier names a stored access policy on the table (si), which lets
	// the token be revoked by removing the policy. A field set in the policy
	// must not be set here too: the service rejects the token.
	Identifier string
	// Version is the signed version (sv); zero means DefaultVersion.
	Version string
}

// Sign validates s and signs it with cred, returning the SAS query
// parameters for TableURL (or Values.Encode). Errors wrap ErrInvalid, name
// the field, and never contain the key or the signature.
func (s TableSignature) Sign(cred *Credential) (url.Values, error) {
	return s.sign(cred, time.Now)
}

func (s TableSignature) sign(cred *Credential, now func() time.Time) (url.Values, error) {
	f, err := s.fields(now)
	if err != nil {
		return nil, err
	}
	return signFields(cred, f)
}

// tableFields are the resolved, validated values exactly as signed and sent.
type tableFields struct {
	version, table, permissions, start, expiry string
	identifier, ip, protocol                   string
	spk, srk, epk, erk                         string
}

func (s TableSignature) fields(now func() time.Time) (tableFields, error) {
	f := tableFields{
		version: s.Version, table: s.Table, identifier: s.Identifier,
		spk: s.StartPartitionKey, srk: s.StartRowKey, epk: s.EndPartitionKey, erk: s.EndRowKey,
	}
	if f.version == "" {
		f.version = DefaultVersion
	}
	if err := checkVersion("Version", f.version); err != nil {
		return f, err
	}
	if err := checkTableName("Table", s.Table); err != nil {
		return f, err
	}
	if unknownBits(uint16(s.Permissions), len(tableLetters)) {
		return f, invalid("Permissions", "unknown permission bits")
	}
	f.permissions = s.Permissions.String()
	policy := s.Identifier != ""
	if policy {
		if err := checkIdentifier("Identifier", s.Identifier); err != nil {
			return f, err
		}
	} else {
		if f.permissions == "" {
			return f, invalid("Permissions", "must not be empty without a stored access policy (Identifier)")
		}
		if s.Expiry.IsZero() {
			return f, invalid("Expiry", "is required without a stored access policy (Identifier)")
		}
	}
	var err error
	if f.start, f.expiry, err = window(s.Start, s.Expiry, s.ClockSkew, !policy, now); err != nil {
		return f, err
	}
	if err := checkRange(f.spk, f.srk, f.epk, f.erk); err != nil {
		return f, err
	}
	if err := s.IP.validate(); err != nil {
		return f, err
	}
	f.ip = s.IP.String()
	p, err := s.Protocol.resolve()
	if err != nil {
		return f, err
	}
	f.protocol = string(p)
	return f, nil
}

// checkRange validates the key range: each key valid, a row key only with
// its partition key, and start <= end in (PartitionKey, RowKey) order.
func checkRange(spk, srk, epk, erk string) error {
	for _, k := range []struct{ field, v string }{
		{"StartPartitionKey", spk}, {"StartRowKey", srk}, {"EndPartitionKey", epk}, {"EndRowKey", erk},
	} {
		if err := checkKey(k.field, k.v); err != nil {
			return err
		}
	}
	if srk != "" && spk == "" {
		return invalid("StartRowKey", "requires StartPartitionKey")
	}
	if erk != "" && epk == "" {
		return invalid("EndRowKey", "requires EndPartitionKey")
	}
	if spk != "" && epk != "" {
		if c := strings.Compare(spk, epk); c > 0 || (c == 0 && srk != "" && erk != "" && srk > erk) {
			return invalid("EndPartitionKey", "range end is before its start")
		}
	}
	return nil
}

// stringToSign is the documented table service SAS string-to-sign for
// versions 2015-04-05 and later: twelve fields joined by newlines, absent
// fields as empty lines, the resource canonicalized as
// /table/<account>/<lowercased table>.
func (f tableFields) stringToSign(account string) string {
	return strings.Join([]string{
		f.permissions,
		f.start,
		f.expiry,
		"/table/" + account + "/" + strings.ToLower(f.table),
		f.identifier,
		f.ip,
		f.protocol,
		f.version,
		f.spk,
		f.srk,
		f.epk,
		f.erk,
	}, "\n")
}

func (f tableFields) values() url.Values {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("sv", f.version)
	set("tn", f.table)
	set("sp", f.permissions)
	set("st", f.start)
	set("se", f.expiry)
	set("spk", f.spk)
	set("srk", f.srk)
	set("epk", f.epk)
	set("erk", f.erk)
	set("sip", f.ip)
	set("spr", f.protocol)
	set("si", f.identifier)
	return v
}
