package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"slices"
	"testing"
)

// TestJobCommandOrder pins what the runner does for every command before
// the command's own run: parse, the table names, the command's checks,
// the accounts (the target falling back to the source's, or left unopened),
// and only then build or act; each refusal stops it there, with nothing
// after it called. No request is sent: opening an account sends none.
func TestJobCommandOrder(t *testing.T) {
	const name = "test-jobcommand"
	register(&command{name: name, args: "TABLE OTHER"})
	t.Cleanup(func() { delete(commands, name) })
	tests := []struct {
		name     string
		args     []string
		env      string // $TABLEKIT_CONNECTION_STRING
		target   bool
		offline  bool
		noTarget bool // check sets it
		failWith error
		want     []string // steps, then what act saw of the accounts
		wantErr  error
	}{
		{"a run", []string{"orders", "x"}, devConn, false, false, false, nil,
			[]string{"flags", "check", "act", "src", "dst=src"}, nil},
		{"a bad table name refused before the checks", []string{"bad-name", "x"}, devConn, false, false, false, nil,
			[]string{"flags"}, errUsage},
		{"a wrong number of arguments", []string{"orders"}, devConn, false, false, false, nil,
			[]string{"flags"}, errUsage},
		{"the command's check refuses before any account is opened", []string{"orders", "x"}, "", false, false, false, errStep,
			[]string{"flags", "check"}, errStep},
		{"no account", []string{"orders", "x"}, "", false, false, false, nil,
			[]string{"flags", "check"}, errUsage},
		{"no target account: the source's", []string{"orders", "x"}, devConn, true, false, false, nil,
			[]string{"flags", "check", "act", "src", "dst=src", "sameAccount"}, nil},
		{"another target account", []string{"orders", "x", "--to-connection-string", devConn}, devConn, true, false, false, nil,
			[]string{"flags", "check", "act", "src", "dst"}, nil},
		{"a bad target account", []string{"orders", "x", "--to-account-url", "ftp://x"}, devConn, true, false, false, nil,
			[]string{"flags", "check"}, errUsage},
		{"no target table: the target account is not opened", []string{"orders", "x", "--to-account-url", "ftp://x"}, devConn, true, false, true, nil,
			[]string{"flags", "check", "act", "src", "dst=src"}, nil},
		{"offline: no account is opened", []string{"orders", "x"}, "", false, true, false, nil,
			[]string{"flags", "check", "act"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			c := &jobCommand{name: name, args: 2, tables: 1, target: tt.target, offline: tt.offline,
				flags: func(*flag.FlagSet, *jobInput) { got = append(got, "flags") },
				check: func(in *jobInput) error {
					got = append(got, "check")
					in.noTarget = tt.noTarget
					return tt.failWith
				},
				act: func(_ context.Context, in *jobInput) error {
					got = append(got, "act")
					if in.src != nil {
						got = append(got, "src")
						if in.dst == in.src {
							got = append(got, "dst=src")
						} else if in.dst != nil {
							got = append(got, "dst")
						}
					}
					if in.sameAccount {
						got = append(got, "sameAccount")
					}
					return nil
				}}
			e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(k string) string {
				if k == envConnection {
					return tt.env
				}
				return ""
			}}
			err := c.run(context.Background(), e, tt.args)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("error: got %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("steps: got %q, want %q", got, tt.want)
			}
		})
	}
}
