package sas

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
)

func TestParseRoundTrip(t *testing.T) {
	cred := devCred(t)
	tsig := TableSignature{
		Table: "Orders", Permissions: Read | Delete, Start: t0, Expiry: t1,
		StartPartitionKey: "a b", StartRowKey: "1", EndPartitionKey: "a b", EndRowKey: "9",
		IP:       IPRange{Start: netip.MustParseAddr("10.0.0.1"), End: netip.MustParseAddr("10.0.0.9")},
		Protocol: HTTPSAndHTTP, Identifier: "pol",
	}
	tv, err := tsig.sign(cred, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	asig := AccountSignature{Permissions: AccountRead | AccountList, ResourceTypes: ResourceService | ResourceObject, Start: t0, Expiry: t1}
	av, err := asig.sign(cred, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	tableURL, err := TableURL("https://acct.table.core.windows.net/", "Orders", tv)
	if err != nil {
		t.Fatal(err)
	}

	wantTable := Parsed{
		Kind: KindTable, Version: DefaultVersion, Table: "Orders", Permissions: Read | Delete,
		Start: t0, Expiry: t1, IP: tsig.IP, Protocol: HTTPSAndHTTP, Identifier: "pol",
		StartPartitionKey: "a b", StartRowKey: "1", EndPartitionKey: "a b", EndRowKey: "9",
	}
	wantURL := wantTable
	wantURL.Resource = "https://acct.table.core.windows.net/Orders"
	wantAccount := Parsed{
		Kind: KindAccount, Version: DefaultVersion, Services: "t", ResourceTypes: ResourceService | ResourceObject,
		AccountPermissions: AccountRead | AccountList, Start: t0, Expiry: t1, Protocol: HTTPSOnly,
	}
	tests := []struct {
		name string
		in   string
		want Parsed
	}{
		{"table query", tv.Encode(), wantTable},
		{"table query with ?", "?" + tv.Encode(), wantTable},
		{"table URL", tableURL, wantURL},
		{"account query", av.Encode(), wantAccount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got.redacted = ""
			if *got != tt.want {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestParseRedacts(t *testing.T) {
	v, err := TableSignature{Table: "orders", Permissions: Read, Start: t0, Expiry: t1}.sign(devCred(t), fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	sig := v.Get("sig")
	u, _ := TableURL("https://acct.table.core.windows.net", "orders", v)
	p, err := Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	want := "https://acct.table.core.windows.net/orders?se=2025-01-02T04%3A04%3A05Z&sig=REDACTED&sp=r&spr=https&st=2025-01-02T03%3A04%3A05Z&sv=2019-02-02&tn=orders"
	if got := p.String(); got != want {
		t.Errorf("String:\ngot  %s\nwant %s", got, want)
	}
	for _, s := range []string{p.String(), sprintAll(p)} {
		if strings.Contains(s, sig) || strings.Contains(s, strings.TrimSuffix(sig, "=")) {
			t.Errorf("output shows the signature: %s", s)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, wantField string
	}{
		{"no sig", "sv=2019-02-02&sp=r&se=2025-01-01T00:00:00Z", "sig"},
		{"no version", "sp=r&sig=abc", "sv"},
		{"repeated", "sv=2019-02-02&sp=r&sig=a&sig=b", "sig"},
		{"bad time", "sv=2019-02-02&sp=r&se=tomorrow&sig=a", "se"},
		{"bad permission", "sv=2019-02-02&sp=rw&sig=a", "sp"},
		{"bad account permission", "sv=2019-02-02&ss=t&srt=o&sp=rz&sig=a", "sp"},
		{"account without srt", "sv=2019-02-02&ss=t&sp=r&sig=a", "srt"},
		{"bad ip", "sv=2019-02-02&sp=r&sip=10.0.0.300&sig=a", "sip"},
		{"ipv6", "sv=2019-02-02&sp=r&sip=::1&sig=a", "sip"},
		{"bad protocol", "sv=2019-02-02&sp=r&spr=http&sig=a", "spr"},
		{"malformed query", "sv=2019-02-02&sig=%zz", "query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in)
			var ve *tablekit.ValidationError
			if !errors.Is(err, tablekit.ErrInvalid) || !errors.As(err, &ve) {
				t.Fatalf("got %v, want tablekit.ErrInvalid", err)
			}
			if ve.Field != tt.wantField {
				t.Errorf("field: got %q, want %q (%v)", ve.Field, tt.wantField, err)
			}
			if strings.Contains(err.Error(), "sig=") {
				t.Errorf("error quotes the token: %v", err)
			}
		})
	}
}

func TestParseTimeForms(t *testing.T) {
	for _, in := range []string{"2025-01-02T03:04:05Z", "2025-01-02T03:04:05.0000000Z", "2025-01-02T03:04Z", "2025-01-02"} {
		p, err := Parse("sv=2019-02-02&sp=r&sig=a&se=" + in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if p.Expiry.Location() != time.UTC || p.Expiry.Year() != 2025 {
			t.Errorf("%s: got %v", in, p.Expiry)
		}
	}
}

func TestExpiresWithin(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name   string
		expiry time.Time
		d      time.Duration
		want   bool
	}{
		{"far", now.Add(time.Hour), 5 * time.Minute, false},
		{"soon", now.Add(time.Minute), 5 * time.Minute, true},
		{"past", now.Add(-time.Minute), 0, true},
		{"no expiry (policy decides)", time.Time{}, time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Parsed{Expiry: tt.expiry}).ExpiresWithin(tt.d); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
