package table_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// doubleRow holds an Edm.Double in every Go type that takes one, and a
// property to change beside them.
type doubleRow struct {
	PartitionKey, RowKey string
	F                    float64
	F32                  float32
	PF                   *float64
	Note                 string
	table.Meta
}

// special is NaN, +Inf and -Inf with the forms Microsoft's SDKs write.
var special = []struct {
	name string
	x    float64
	text string
}{
	{"NaN", math.NaN(), "NaN"},
	{"+Inf", math.Inf(1), "Infinity"},
	{"-Inf", math.Inf(-1), "-Infinity"},
}

// sameFloat is == with NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// TestDoubleSpecialsOnAzurite: NaN and the infinities are written by every
// entity type, stored by Azurite as the other clients' strings, and read
// back; an entity another client wrote with one can be changed by a merge
// of another property without losing it.
func TestDoubleSpecialsOnAzurite(t *testing.T) {
	ctx := testenv.Ctx(t)
	tbl, _ := newRecordedTable[doubleRow](t, nil)
	dyn, err := table.As[table.Entity](tbl)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := table.As[table.RawEntity](tbl)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range special {
		t.Run(s.name, func(t *testing.T) {
			x := s.x
			in := doubleRow{PartitionKey: "typed", RowKey: s.text, F: x, F32: float32(x), PF: &x}
			if _, err := tbl.Add(ctx, in); err != nil {
				t.Fatal(err)
			}
			got, err := tbl.Get(ctx, "typed", s.text, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !sameFloat(got.F, x) || !sameFloat(float64(got.F32), x) || got.PF == nil || !sameFloat(*got.PF, x) {
				t.Errorf("typed read back F %v, F32 %v, PF %v; want %v", got.F, got.F32, got.PF, x)
			}
			// What Azurite stored, through a client that is not tablekit.
			stored, err := tbl.Client().GetEntity(ctx, "typed", s.text, nil)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(stored.Value, &m); err != nil {
				t.Fatal(err)
			}
			if m["F"] != s.text || m["F@odata.type"] != "Edm.Double" {
				t.Errorf("stored F = %#v (%v), want %q annotated Edm.Double", m["F"], m["F@odata.type"], s.text)
			}

			e := table.NewEntity("dynamic", s.text)
			e.Properties["D"] = x
			if _, err := dyn.Add(ctx, e); err != nil {
				t.Fatal(err)
			}
			back, err := dyn.Get(ctx, "dynamic", s.text, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d, ok := back.Properties["D"].(float64); !ok || !sameFloat(d, x) {
				t.Errorf("Entity read back D = %#v, want float64 %v", back.Properties["D"], x)
			}

			r, err := raw.Get(ctx, "dynamic", s.text, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := `"D@odata.type":"Edm.Double","D":"` + s.text + `"`; !strings.Contains(string(r.Properties), want) {
				t.Errorf("RawEntity Properties %s, want %s", r.Properties, want)
			}
			r.RowKey += "-copy"
			if _, err := raw.Add(ctx, r); err != nil {
				t.Fatal(err)
			}
			cp, err := dyn.Get(ctx, "dynamic", s.text+"-copy", nil)
			if err != nil {
				t.Fatal(err)
			}
			if d, ok := cp.Properties["D"].(float64); !ok || !sameFloat(d, x) {
				t.Errorf("RawEntity copy holds D = %#v, want float64 %v", cp.Properties["D"], x)
			}

			// Another client's entity, changed by a merge of another property.
			body := `{"PartitionKey":"foreign","RowKey":"` + s.text + `","F@odata.type":"Edm.Double","F":"` + s.text + `","Note":"before"}`
			if _, err := tbl.Client().AddEntity(ctx, []byte(body), nil); err != nil {
				t.Fatal(err)
			}
			f, err := tbl.Get(ctx, "foreign", s.text, &table.GetOptions{Select: []string{"Note", "F"}})
			if err != nil {
				t.Fatal(err)
			}
			f.Note = "after"
			if _, err := tbl.Update(ctx, f, table.Merge, f.ETag); err != nil {
				t.Fatal(err)
			}
			if f, err = tbl.Get(ctx, "foreign", s.text, nil); err != nil || f.Note != "after" || !sameFloat(f.F, x) {
				t.Errorf("after the merge: Note %q, F %v, %v; want after, %v", f.Note, f.F, err, x)
			}
		})
	}
}

// TestNodeSDKDoubles: Microsoft's Node SDK is the other client. What it
// writes as NaN, Infinity and -Infinity, tablekit reads as those values
// into float fields, table.Entity and RawEntity; what tablekit writes, the
// SDK reads as those Edm.Double values.
func TestNodeSDKDoubles(t *testing.T) {
	ctx := testenv.Ctx(t)
	env := testenv.Azurite(t)
	tbl, _ := newRecordedTable[doubleRow](t, nil)
	dyn, err := table.As[table.Entity](tbl)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := table.As[table.RawEntity](tbl)
	if err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	for _, s := range special {
		d := map[string]any{"value": s.text, "type": "Double"}
		line, _ := json.Marshal(map[string]any{"partitionKey": "node", "rowKey": s.text, "F": d, "F32": d, "PF": d})
		in.Write(append(line, '\n'))
	}
	env.NodeSDK(t, "put", tbl.Name(), in.Bytes())

	for _, s := range special {
		got, err := tbl.Get(ctx, "node", s.text, nil)
		if err != nil {
			t.Fatalf("%s written by Node: %v", s.name, err)
		}
		if !sameFloat(got.F, s.x) || !sameFloat(float64(got.F32), s.x) || got.PF == nil || !sameFloat(*got.PF, s.x) {
			t.Errorf("%s written by Node: read F %v, F32 %v, PF %v", s.name, got.F, got.F32, got.PF)
		}
		e, err := dyn.Get(ctx, "node", s.text, nil)
		if d, ok := e.Properties["F"].(float64); err != nil || !ok || !sameFloat(d, s.x) {
			t.Errorf("%s written by Node: Entity F = %#v, %v", s.name, e.Properties["F"], err)
		}
		r, err := raw.Get(ctx, "node", s.text, nil)
		if want := `"F@odata.type":"Edm.Double","F":"` + s.text + `"`; err != nil || !strings.Contains(string(r.Properties), want) {
			t.Errorf("%s written by Node: RawEntity %s, %v; want %s", s.name, r.Properties, err, want)
		}

		x := s.x
		if _, err := tbl.Add(ctx, doubleRow{PartitionKey: "tablekit", RowKey: s.text, F: x, F32: float32(x), PF: &x}); err != nil {
			t.Fatal(err)
		}
	}

	seen := 0
	for line := range bytes.Lines(env.NodeSDK(t, "list", tbl.Name(), nil)) {
		var e map[string]any
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("Node listed %s: %v", line, err)
		}
		if e["partitionKey"] != "tablekit" {
			continue
		}
		seen++
		want := map[string]any{"value": e["rowKey"], "type": "Double"}
		for _, name := range []string{"F", "F32", "PF"} {
			if got, _ := json.Marshal(e[name]); string(got) != mustJSON(t, want) {
				t.Errorf("Node read %s of %v as %s, want %s", name, e["rowKey"], got, mustJSON(t, want))
			}
		}
	}
	if seen != len(special) {
		t.Errorf("Node listed %d of tablekit's entities, want %d", seen, len(special))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
