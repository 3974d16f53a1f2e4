package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const devConn = "UseDevelopmentStorage=true"

func TestEndpointResolution(t *testing.T) {
	tests := []struct {
		name     string
		f        endpointFlags
		env      string
		endpoint string // "" when an error is wanted
		usage    bool
	}{
		{"flag", endpointFlags{connString: devConn}, "", "http://127.0.0.1:10002/devstoreaccount1", false},
		{"environment", endpointFlags{}, devConn, "http://127.0.0.1:10002/devstoreaccount1", false},
		{"sas in url", endpointFlags{accountURL: "https://acct.table.core.windows.net/?sv=2019-02-02&sig=x"}, "", "https://acct.table.core.windows.net", false},
		{"sas flag", endpointFlags{accountURL: "https://acct.table.core.windows.net", sas: "?sv=2019-02-02&sig=x"}, "", "https://acct.table.core.windows.net", false},
		{"both", endpointFlags{connString: devConn, accountURL: "https://a.example"}, "", "", true},
		{"sas twice", endpointFlags{accountURL: "https://a.example/?sig=x", sas: "sig=y"}, "", "", true},
		{"sas alone", endpointFlags{sas: "sig=y"}, "", "", true},
		{"nothing", endpointFlags{}, "", "", true},
		{"not a url", endpointFlags{accountURL: "acct"}, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.envVar = envConnection
			e := &env{getenv: func(k string) string {
				if k == envConnection {
					return tt.env
				}
				return ""
			}}
			c, err := tt.f.open(e, new(retryCount))
			if tt.endpoint == "" {
				if err == nil || errors.Is(err, errUsage) != tt.usage {
					t.Fatalf("got %v, want an error (usage %v)", err, tt.usage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.svc.Endpoint(); got != tt.endpoint {
				t.Errorf("endpoint %q, want %q", got, tt.endpoint)
			}
		})
	}
}

func TestTargetDefaultsToSource(t *testing.T) {
	f := targetFlags()
	_, err := f.open(&env{getenv: func(string) string { return "" }}, new(retryCount))
	if !errors.Is(err, errNoTarget) {
		t.Fatalf("no target flags: %v, want errNoTarget", err)
	}
	e := &env{getenv: func(k string) string {
		if k == envTargetConnection {
			return devConn
		}
		return ""
	}}
	if _, err := f.open(e, new(retryCount)); err != nil {
		t.Fatalf("target from %s: %v", envTargetConnection, err)
	}
}

func TestMeterSummary(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var buf bytes.Buffer
		var retries retryCount
		retries.all.Store(2)
		retries.throttled.Store(1)
		m := newMeter(&env{stderr: &buf, tty: tty}, "count", -1, 10, &retries)
		m.add(5)
		m.rejects.Add(1)
		m.finish()
		for _, want := range []string{"count: 15 entities (5 in this run)", "2 retries (1 throttled)", "1 rejects"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("tty %v: summary %q lacks %q", tty, buf.String(), want)
			}
		}
	}
}

// TestConnectWriteCap: copy's --rate caps the source's reads too only
// when the source is the target's account; in another account they only
// back off (a rate of 0). Other commands cap both.
func TestConnectWriteCap(t *testing.T) {
	tests := []struct {
		name             string
		rate             rateValue
		writeCap, target bool
		wantSrc, wantDst rateValue
		wantSameAccount  bool
	}{
		{"copy into another account", 1000, true, true, 0, 1000, false},
		{"copy within the account", 1000, true, false, 1000, 1000, true},
		{"copy, no cap", 0, true, true, 0, 0, false},
		{"copy, no limiter", -1, true, true, -1, -1, false},
		{"verify against another account", 1000, false, true, 1000, 1000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{getenv: func(k string) string {
				if k == envTargetConnection && tt.target {
					return devConn
				}
				return ""
			}}
			in := &jobInput{e: e, from: &endpointFlags{connString: devConn, envVar: envConnection}, to: targetFlags(), retries: new(retryCount)}
			rate := tt.rate
			if err := in.connect(&rate, true, tt.writeCap); err != nil {
				t.Fatal(err)
			}
			if got := *in.from.rate; got != tt.wantSrc {
				t.Errorf("source's rate: got %v, want %v", got, tt.wantSrc)
			}
			if got := *in.to.rate; got != tt.wantDst {
				t.Errorf("target's rate: got %v, want %v", got, tt.wantDst)
			}
			if in.sameAccount != tt.wantSameAccount {
				t.Errorf("same account: got %v, want %v", in.sameAccount, tt.wantSameAccount)
			}
		})
	}
}
