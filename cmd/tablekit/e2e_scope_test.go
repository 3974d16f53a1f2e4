package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestE2EPrefixAndPartition runs every command that reads a table with
// --prefix and --partition: each reads exactly the entities they select.
func TestE2EPrefixAndPartition(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seed(t, az, []string{"log-a", "log-b", "other"}, 30)
	scopes := []struct {
		name  string
		flags []string
		want  int
	}{
		{"prefix", []string{"--prefix", "log-"}, 60},
		{"partition", []string{"--partition", "log-b"}, 30},
		{"partition and RowKey prefix", []string{"--partition", "other", "--prefix", "001"}, 10},
	}
	for _, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			if got := count(t, cs, append([]string{name}, sc.flags...)...); got != sc.want {
				t.Errorf("count: %d, want %d", got, sc.want)
			}
			file := filepath.Join(t.TempDir(), "out.jsonl")
			wantCode(t, tk(t, cs, append([]string{"export", name, "-o", file}, sc.flags...)...), 0, "export")
			if got := len(keysOf(t, file)); got != sc.want {
				t.Errorf("export: %d entities, want %d", got, sc.want)
			}
			dname := testenv.TableName(t)
			t.Cleanup(func() { dropTable(t, cs, dname) })
			wantCode(t, tk(t, cs, append([]string{"copy", name, dname}, sc.flags...)...), 0, "copy")
			if got := count(t, cs, dname); got != sc.want {
				t.Errorf("copy: %d entities, want %d", got, sc.want)
			}
			whole := testenv.TableName(t)
			t.Cleanup(func() { dropTable(t, cs, whole) })
			wantCode(t, tk(t, cs, "copy", name, whole), 0, "copy the whole table")
			wantCode(t, tk(t, cs, append([]string{"delete", whole, "--yes"}, sc.flags...)...), 0, "delete")
			if got := count(t, cs, append([]string{whole}, sc.flags...)...); got != 0 {
				t.Errorf("delete left %d of the %d entities it selects", got, sc.want)
			}
			if got := count(t, cs, whole); got != 90-sc.want {
				t.Errorf("after delete: %d entities, want %d", got, 90-sc.want)
			}
		})
	}
	if got := count(t, cs, name); got != 90 {
		t.Errorf("the source holds %d entities, want its 90", got)
	}
}

// TestE2EFilterTypes runs every command that reads a table with a --filter
// literal of another type than its property's in the data: each stops
// before it acts, naming both types, instead of matching nothing (and a
// delete deleting nothing). The right literal, or --check-filter=false,
// runs.
func TestE2EFilterTypes(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	src, name := newDynTable(t, cs)
	var ents []table.Entity
	for i := range 30 {
		e := table.NewEntity("p", fmt.Sprintf("%02d", i))
		e.Properties["N32"] = int32(i)
		e.Properties["N64"] = int64(i)
		ents = append(ents, e)
	}
	if _, err := batch.Write(context.Background(), src, upserts(ents), nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	target := testenv.TableName(t)
	out := filepath.Join(dir, "out.jsonl")
	wrong := []struct {
		name   string
		args   []string
		saying []string
	}{
		{"count", []string{"count", name, "--filter", "N64 lt 10"}, []string{"N64", "Edm.Int32", "Edm.Int64", "write 10L"}},
		{"delete", []string{"delete", name, "--filter", "N64 lt 10", "--yes"}, []string{"Edm.Int32", "Edm.Int64"}},
		{"export", []string{"export", name, "-o", out, "--partition", "p", "--filter", "N32 eq 5L"}, []string{"Edm.Int64", "Edm.Int32", "write 5)"}},
		{"copy", []string{"copy", name, target, "--filter", "5 gt N64 and N32 lt 3"}, []string{"Edm.Int32", "Edm.Int64"}},
		{"Timestamp, no read", []string{"count", name, "--filter", "Timestamp lt '2030-01-01'"}, []string{"Edm.String", "Edm.DateTime", "datetime'2030-01-01T00:00:00.0000000Z'"}},
	}
	for _, tt := range wrong {
		t.Run(tt.name, func(t *testing.T) {
			r := tk(t, cs, tt.args...)
			wantCode(t, r, exitUsage, strings.Join(tt.args, " "))
			for _, s := range tt.saying {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr does not say %q:\n%s", s, r.stderr)
				}
			}
		})
	}
	if got := count(t, cs, name); got != 30 {
		t.Errorf("after the refused delete: %d entities, want 30", got)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the refused export wrote %s", out)
	}
	if r := tk(t, cs, "tables", "--prefix", target); strings.TrimSpace(r.stdout) != "" {
		t.Errorf("the refused copy created its target")
	}
	if got := count(t, cs, name, "--filter", "N64 lt 10L and N32 ge 5"); got != 5 {
		t.Errorf("count with the right literals: %d, want 5", got)
	}
	wantCode(t, tk(t, cs, "count", name, "--filter", "N64 lt 10", "--check-filter=false"), exitOK, "--check-filter=false")
	wantCode(t, tk(t, cs, "delete", name, "--filter", "N64 lt 10L", "--yes"), exitOK, "delete with the right literal")
	if got := count(t, cs, name); got != 20 {
		t.Errorf("after deleting N64 lt 10L: %d entities, want 20", got)
	}
}

func upserts(ents []table.Entity) []batch.Op[table.Entity] {
	ops := make([]batch.Op[table.Entity], len(ents))
	for i, e := range ents {
		ops[i] = batch.Op[table.Entity]{Entity: e}
	}
	return ops
}
