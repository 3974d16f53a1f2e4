package table_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

// http is allowed on any host for the emulator's well-known account, whose
// key is public; every other account needs https, loopback or an explicit
// AllowInsecureHTTP.
func TestSchemeRules(t *testing.T) {
	otherKey := "b3RoZXJrZXk="
	tests := []struct {
		name     string
		cs       string
		insecure bool
		wantEP   string // "" when NewService must fail
	}{
		{"dev storage via proxy host", "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://azurite", false, "http://azurite:10002/devstoreaccount1"},
		{"dev storage default", "UseDevelopmentStorage=true", false, "http://127.0.0.1:10002/devstoreaccount1"},
		{"dev account on a LAN host", "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + devKey + ";TableEndpoint=http://10.0.0.7:10002/devstoreaccount1", false, "http://10.0.0.7:10002/devstoreaccount1"},
		{"dev account name with another key", "AccountName=devstoreaccount1;AccountKey=" + otherKey + ";TableEndpoint=http://azurite:10002/devstoreaccount1", false, ""},
		{"dev key with another account", "AccountName=acct;AccountKey=" + devKey + ";TableEndpoint=http://azurite:10002/acct", false, ""},
		{"real account over http", "DefaultEndpointsProtocol=http;AccountName=acct;AccountKey=" + otherKey, false, ""},
		{"real account over http, allowed", "DefaultEndpointsProtocol=http;AccountName=acct;AccountKey=" + otherKey, true, "http://acct.table.core.windows.net"},
		{"real account on loopback", "AccountName=acct;AccountKey=" + otherKey + ";TableEndpoint=http://127.0.0.1:10002/acct", false, "http://127.0.0.1:10002/acct"},
		{"real account over https", "AccountName=acct;AccountKey=" + otherKey, false, "https://acct.table.core.windows.net"},
		{"SAS over http to a LAN host", "TableEndpoint=http://azurite:10002/devstoreaccount1;SharedAccessSignature=sv=2019-02-02&sig=x", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, err := table.NewService(tt.cs, &table.Options{AllowInsecureHTTP: tt.insecure})
			if tt.wantEP == "" {
				if !errors.Is(err, tablekit.ErrInvalid) {
					t.Fatalf("NewService error = %v, want tablekit.ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewService error = %v, want none", err)
			}
			if got := svc.Endpoint(); got != tt.wantEP {
				t.Errorf("Endpoint() = %q, want %q", got, tt.wantEP)
			}
		})
	}
}

func TestSharedKeySchemeRules(t *testing.T) {
	tests := []struct {
		url, account, key string
		ok                bool
	}{
		{"http://azurite:10002/devstoreaccount1", "devstoreaccount1", devKey, true},
		{"http://azurite:10002/devstoreaccount1", "devstoreaccount1", "b3RoZXJrZXk=", false},
		{"http://tables.example.com", "acct", "b3RoZXJrZXk=", false},
		{"https://tables.example.com", "acct", "b3RoZXJrZXk=", true},
	}
	for _, tt := range tests {
		_, err := table.NewServiceWithSharedKey(tt.url, tt.account, tt.key, nil)
		if got := err == nil; got != tt.ok {
			t.Errorf("NewServiceWithSharedKey(%s, %s) error = %v, want ok %v", tt.url, tt.account, err, tt.ok)
		}
	}
}

// A refused connection to loopback says that no emulator is listening and
// how to start one, and stays a transport error underneath.
func TestNoEmulatorHint(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	svc, err := table.NewServiceWithSharedKey("http://"+addr+"/devstoreaccount1", "devstoreaccount1", devKey, &table.Options{Retry: &retry.Policy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[Row](svc, "nothere")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tbl.Get(context.Background(), "p", "r", nil)
	if err == nil {
		t.Fatal("Get succeeded with nothing listening")
	}
	for _, want := range []string{"no emulator is listening on " + addr, "npx azurite-table"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error = %q, want it to contain %q", err, want)
		}
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("errors.Is(err, ECONNREFUSED) = false for %v", err)
	}
}
