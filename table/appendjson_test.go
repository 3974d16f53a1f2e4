package table_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/table"
)

// AppendJSON writes what Marshal writes, after what dst holds, with the
// Timestamp a read returns when it is set; on an error dst is unchanged.
func TestAppendJSON(t *testing.T) {
	svc, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[table.Entity](svc, "lines")
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2024, 5, 6, 7, 8, 9, 123456700, time.FixedZone("X", 3600))
	mk := func(ts time.Time, props map[string]any) table.Entity {
		e := table.NewEntity("p", "r")
		e.Properties, e.Timestamp = props, ts
		return e
	}
	tests := []struct {
		name    string
		e       table.Entity
		wantTS  string // the Timestamp member added, "" for none
		wantErr bool
	}{
		{"no timestamp", mk(time.Time{}, map[string]any{"N": int32(1)}), "", false},
		{"timestamp in UTC", mk(ts, map[string]any{"N": int32(1), "S": "x"}), `,"Timestamp@odata.type":"Edm.DateTime","Timestamp":"2024-05-06T06:08:09.1234567Z"`, false},
		{"no properties", mk(ts, nil), `,"Timestamp@odata.type":"Edm.DateTime","Timestamp":"2024-05-06T06:08:09.1234567Z"`, false},
		{"timestamp out of range", mk(time.Date(1600, 12, 31, 0, 0, 0, 0, time.UTC), nil), "", true},
		{"bad property", mk(ts, map[string]any{"N": 3}), "", true},
	}
	for _, tt := range tests {
		dst := []byte("prefix")
		got, err := tbl.AppendJSON(dst, tt.e)
		if tt.wantErr {
			if !errors.Is(err, tablekit.ErrInvalid) || string(got) != "prefix" {
				t.Errorf("%s: got %q, %v; want prefix and an error matching tablekit.ErrInvalid", tt.name, got, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		m, err := tbl.Marshal(tt.e)
		if err != nil {
			t.Fatal(err)
		}
		want := "prefix" + strings.TrimSuffix(string(m), "}") + tt.wantTS + "}"
		if string(got) != want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
		back, err := tbl.Unmarshal(got[len("prefix"):])
		if err != nil {
			t.Fatalf("%s: reading back: %v", tt.name, err)
		}
		if !back.Timestamp.Equal(tt.e.Timestamp) {
			t.Errorf("%s: Timestamp read back %v, want %v", tt.name, back.Timestamp, tt.e.Timestamp)
		}
	}
}
