package sas

import (
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
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

// TestNilArguments checks the functions that take pointers with nil.
func TestNilArguments(t *testing.T) {
	calls := map[string]func() error{
		"ServiceCredential(nil)": func() error { _, err := ServiceCredential(nil); return err },
		"Policies(nil)":          func() error { _, err := Policies(t.Context(), nil, "t1"); return err },
		"SetPolicies(nil)":       func() error { return SetPolicies(t.Context(), nil, "t1", []Policy{{ID: "x"}}) },
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
			if err == nil {
				t.Errorf("err = nil, want an error")
			}
		})
	}
}
