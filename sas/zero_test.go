package sas

import (
	"errors"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestZeroValuesDoNotPanic calls every exported method of every exported
// type on a zero value with zero arguments: each returns, none panics.
func TestZeroValuesDoNotPanic(t *testing.T) {
	zero := map[string]any{
		"AccountSignature": new(AccountSignature), "Credential": new(Credential),
		"IPRange": new(IPRange), "Kind": new(Kind), "Parsed": new(Parsed), "Permissions": new(Permissions),
		"AccountPermissions": new(AccountPermissions), "ResourceTypes": new(ResourceTypes), "Policy": new(Policy),
		"Protocol": new(Protocol), "TableSignature": new(TableSignature),
	}
	testenv.CheckZeroValues(t, zero)
}

// TestNilArguments checks the functions that take a Service with a nil and
// a zero one: each refuses it before sending anything.
func TestNilArguments(t *testing.T) {
	calls := map[string]func() error{
		"ServiceCredential(nil)":  func() error { _, err := ServiceCredential(nil); return err },
		"Policies(nil)":           func() error { _, err := Policies(t.Context(), nil, "orders"); return err },
		"SetPolicies(nil)":        func() error { return SetPolicies(t.Context(), nil, "orders", []Policy{{ID: "x"}}) },
		"ServiceCredential(zero)": func() error { _, err := ServiceCredential(new(table.Service)); return err },
		"Policies(zero)":          func() error { _, err := Policies(t.Context(), new(table.Service), "orders"); return err },
		"SetPolicies(zero)": func() error {
			return SetPolicies(t.Context(), new(table.Service), "orders", []Policy{{ID: "x"}})
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("panic: %v", r)
					}
				}()
				err = call()
			}()
			var ve *tablekit.ValidationError
			if !errors.Is(err, tablekit.ErrInvalid) || !errors.As(err, &ve) || ve.Field != "service" {
				t.Errorf("err = %v, want tablekit.ErrInvalid naming the service", err)
			}
		})
	}
}
