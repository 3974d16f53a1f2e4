package sas

import (
	"errors"
	"net/netip"
	"net/url"
	"slices"
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

// TestParseErrorsQuoteNoValue gives Parse a malformed or refused value in
// each parameter it reads, every value marked with "7Qx9": the error names
// the parameter and the rule and shows none of them (a SAS's values, the
// signature first, are secrets or point at one).
func TestParseErrorsQuoteNoValue(t *testing.T) {
	tests := []struct {
		name, in, wantField string
	}{
		{"bad start", "sv=2019-02-02&sp=r&st=next-7Qx9-week&sig=sig7Qx9", "st"},
		{"bad expiry", "sv=2019-02-02&sp=r&se=2025-06-01T25:00:00Z7Qx9&sig=sig7Qx9", "se"},
		{"bad ip", "sv=2019-02-02&sp=r&sip=10.0.0.300&sig=sig7Qx9", "sip"},
		{"bad ip range end", "sv=2019-02-02&sp=r&sip=10.9.8.7-host7Qx9&sig=sig7Qx9", "sip"},
		{"reversed ip range", "sv=2019-02-02&sp=r&sip=10.9.8.7-10.9.8.1&sig=sig7Qx9", "sip"},
		{"ipv6", "sv=2019-02-02&sp=r&sip=2001:db8::7&sig=sig7Qx9", "sip"},
		{"bad permission", "sv=2019-02-02&sp=rx7Qx9&sig=sig7Qx9", "sp"},
		{"bad account permission", "sv=2019-02-02&ss=t&srt=o&sp=rz7Qx9&sig=sig7Qx9", "sp"},
		{"bad resource types", "sv=2019-02-02&ss=t&srt=oq7Qx9&sp=r&sig=sig7Qx9", "srt"},
		{"bad protocol", "sv=2019-02-02&sp=r&spr=ftp7Qx9&sig=sig7Qx9", "spr"},
		{"repeated signature", "sv=2019-02-02&sp=r&sig=first7Qx9&sig=second7Qx9", "sig"},
		{"repeated unknown parameter", "sv=2019-02-02&sp=r&secret7Qx9=a&secret7Qx9=b&sig=sig7Qx9", "query"},
		{"no version", "sp=r&tn=orders7Qx9&sig=sig7Qx9", "sv"},
		{"malformed query", "sv=2019-02-02&sig=sig7Qx9%zz", "query"},
		{"malformed URL", "https://acct7Qx9.table.core.windows.net:port7Qx9/orders?sv=2019-02-02&sig=sig7Qx9", "url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in)
			if ve := checkParseError(t, err); ve != nil && ve.Field != tt.wantField {
				t.Errorf("field: got %q, want %q (%v)", ve.Field, tt.wantField, err)
			}
			for _, s := range []string{"7Qx9", "10.0.0.300", "10.9.8", "2001:db8"} {
				if err != nil && strings.Contains(err.Error(), s) {
					t.Errorf("error %q shows %q from the input", err, s)
				}
			}
		})
	}
}

// checkParseError checks an error of Parse against the package's error
// model: a *tablekit.ValidationError of operation "sas" that names a SAS
// parameter (or the URL or query as a whole) and a rule, and wraps no other
// error and no detail (standard library errors quote their input). It
// returns nil after reporting a mismatch.
func checkParseError(t *testing.T, err error) *tablekit.ValidationError {
	t.Helper()
	var ve *tablekit.ValidationError
	if !errors.Is(err, tablekit.ErrInvalid) || !errors.As(err, &ve) {
		t.Errorf("got %v, want a *tablekit.ValidationError", err)
		return nil
	}
	if ve.Operation != "sas" || ve.Err != nil || ve.Detail != "" || ve.Index != -1 {
		t.Errorf("got %#v, want operation sas, index -1, no cause and no detail", ve)
		return nil
	}
	if !slices.Contains(parameters, ve.Field) && ve.Field != "url" && ve.Field != "query" {
		t.Errorf("field: got %q, want a SAS parameter, url or query", ve.Field)
		return nil
	}
	return ve
}

// FuzzParse checks that no input makes Parse panic or put a value of its
// input in an error: every error fits checkParseError, and a query whose
// every value is wrapped in U+001F (which no rule contains) gives an error
// without it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"sv=2019-02-02&tn=orders&sp=r&st=2025-06-01T12%3A00%3A00Z&se=2025-06-01T13%3A00%3A00Z&spk=a&epk=b&sip=10.0.0.1-10.0.0.9&spr=https,http&si=pol&sig=c2ln",
		"sv=2019-02-02&ss=t&srt=sco&sp=rwdlacup&se=2025-06-01&sig=c2ln",
		"?sv=2019-02-02&sp=r&se=2025-06-01T13:00Z&sig=c2ln",
		"https://acct.table.core.windows.net/orders?sv=2019-02-02&sp=r&sig=c2ln",
		"sv=2019-02-02&sp=r&sip=10.9.8.7-10.9.8.1&sig=c2ln",
		"sv=2019-02-02&sp=r&st=x&sig=a&sig=b",
		"sv=2019-02-02&sig=%zz",
		"http://[::1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := Parse(s); err != nil {
			checkParseError(t, err)
		}
		raw := strings.TrimPrefix(strings.TrimSpace(s), "?")
		if l := strings.ToLower(raw); strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
			return
		}
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		for _, vs := range q {
			for i, v := range vs {
				vs[i] = "\x1f" + v + "\x1f"
			}
		}
		if _, err := Parse(q.Encode()); err != nil {
			checkParseError(t, err)
			if strings.Contains(err.Error(), "\x1f") {
				t.Errorf("error %q shows a value of the query %q", err, q.Encode())
			}
		}
	})
}
