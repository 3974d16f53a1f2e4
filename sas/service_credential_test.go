package sas_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/sas"
	"github.com/tablekit/tablekit/table"
)

// The credential of a service signs exactly like one made from the same
// account and key; services without a key have none.
func TestServiceCredential(t *testing.T) {
	const key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	keyed, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	bySAS, err := table.NewServiceWithSAS("http://127.0.0.1:10002/devstoreaccount1?sv=2019-02-02&sig=x", nil)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := sas.NewCredential("devstoreaccount1", key)
	if err != nil {
		t.Fatal(err)
	}
	sig := sas.TableSignature{Table: "orders", Permissions: sas.Read, Start: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), Expiry: time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC), Protocol: sas.HTTPSAndHTTP}
	want, err := sig.Sign(direct)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		svc  *table.Service
		ok   bool
	}{
		{"shared key", keyed, true},
		{"SAS", bySAS, false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		cred, err := sas.ServiceCredential(tt.svc)
		if !tt.ok {
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("%s: ServiceCredential error = %v, want tablekit.ErrInvalid", tt.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got, err := sig.Sign(cred)
		if err != nil || got.Encode() != want.Encode() {
			t.Errorf("%s: Sign = %q, %v; want %q", tt.name, got, err, want)
		}
	}
}
