package sas

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
)

func TestCredentialNeverShowsKey(t *testing.T) {
	c := devCred(t)
	raw, err := base64.StdEncoding.DecodeString(devKey)
	if err != nil {
		t.Fatal(err)
	}
	keyHex := fmt.Sprintf("%x", raw)
	keyDec := fmt.Sprint(raw)
	outputs := map[string]string{
		"String":   c.String(),
		"GoString": c.GoString(),
		"%v":       fmt.Sprintf("%v", c),
		"%+v":      fmt.Sprintf("%+v", c),
		"%#v":      fmt.Sprintf("%#v", c),
		"%s":       fmt.Sprintf("%s", c),
		"%x":       fmt.Sprintf("%x", c),
		"%v value": fmt.Sprintf("%v", *c),
		"%+v in a struct": fmt.Sprintf("%+v", struct {
			C Credential
			P *Credential
		}{*c, c}),
		// fmt cannot call Format on an unexported field and prints it by
		// reflection.
		"%+v unexported field": fmt.Sprintf("%+v", struct{ c Credential }{*c}),
		"%#v unexported field": fmt.Sprintf("%#v", struct{ c Credential }{*c}),
	}
	var sb strings.Builder
	slog.New(slog.NewTextHandler(&sb, nil)).Info("x", "cred", c)
	slog.New(slog.NewJSONHandler(&sb, nil)).Info("x", "cred", c)
	outputs["slog"] = sb.String()
	for name, got := range outputs {
		if strings.Contains(got, devKey) || strings.Contains(got, devKey[:20]) || strings.Contains(got, keyHex[:16]) || strings.Contains(got, keyDec[:12]) {
			t.Errorf("%s shows the key: %q", name, got)
		}
	}
	if want := "sas.Credential{Account: devstoreaccount1, Key: REDACTED}"; outputs["%v"] != want {
		t.Errorf("%%v: got %q, want %q", outputs["%v"], want)
	}
}

func TestNewCredentialErrors(t *testing.T) {
	secret := "not*base64*" + devKey[:10]
	tests := []struct {
		name, account, key, wantField string
	}{
		{"no account", "", devKey, "account"},
		{"no key", devAccount, "", "key"},
		{"not base64", devAccount, secret, "key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewCredential(tt.account, tt.key)
			var ve *tablekit.ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.wantField {
				t.Fatalf("got %v, want *tablekit.ValidationError for %q", err, tt.wantField)
			}
			if tt.key != "" && strings.Contains(err.Error(), tt.key) {
				t.Errorf("error quotes the key: %v", err)
			}
		})
	}
}
