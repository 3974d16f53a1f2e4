package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
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
			t.Cleanup(func() { _ = dynTableOf(t, cs, dname).DeleteTable(context.Background()) })
			wantCode(t, tk(t, cs, append([]string{"copy", name, dname}, sc.flags...)...), 0, "copy")
			if got := count(t, cs, dname); got != sc.want {
				t.Errorf("copy: %d entities, want %d", got, sc.want)
			}
			whole := testenv.TableName(t)
			t.Cleanup(func() { _ = dynTableOf(t, cs, whole).DeleteTable(context.Background()) })
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
