package query

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// measure holds an Edm.Double.
type measure struct {
	PartitionKey, RowKey string
	V                    float64
}

// TestDoubleSpecials: pages holding NaN and the infinities decode, a NaN
// or infinity literal is tablekit.ErrInvalid before any request, and the
// comparisons it names instead select the infinities on Azurite (and, by
// IEEE 754 order, on the service).
func TestDoubleSpecials(t *testing.T) {
	ctx := testenv.Context(t, time.Minute)
	rec := testenv.NewRecorder()
	tbl := testenv.NewTable[measure](t, newService(t, "", &table.Options{Transport: rec}))
	values := map[string]float64{
		"nan": math.NaN(), "inf": math.Inf(1), "ninf": math.Inf(-1),
		"one": 1.5, "max": math.MaxFloat64, "nmax": -math.MaxFloat64,
	}
	for rk, x := range values {
		if _, err := tbl.Add(ctx, measure{PartitionKey: "p", RowKey: rk, V: x}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := Collect(New(tbl).Where(Partition("p")).All(ctx))
	if err != nil || len(all) != len(values) {
		t.Fatalf("read %d entities, %v; want %d", len(all), err, len(values))
	}
	for _, m := range all {
		if x := values[m.RowKey]; m.V != x && !(math.IsNaN(m.V) && math.IsNaN(x)) {
			t.Errorf("%s: V = %v, want %v", m.RowKey, m.V, x)
		}
	}

	v := Property("V")
	for _, c := range []struct {
		name string
		f    Filter
		want []string
	}{
		{"+Inf", v.Gt(Double(math.MaxFloat64)), []string{"inf"}},
		{"all but +Inf and NaN", v.Le(Double(math.MaxFloat64)), []string{"max", "ninf", "nmax", "one"}},
		{"-Inf", v.Lt(Double(-math.MaxFloat64)), []string{"ninf"}},
		{"all but -Inf and NaN", v.Ge(Double(-math.MaxFloat64)), []string{"inf", "max", "nmax", "one"}},
	} {
		got, err := Collect(New(tbl).Where(And(Partition("p"), c.f)).All(ctx))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var rks []string
		for _, m := range got {
			rks = append(rks, m.RowKey)
		}
		if slices.Sort(rks); !slices.Equal(rks, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, rks, c.want)
		}
	}

	before := rec.Count()
	for _, c := range []struct {
		x    float64
		hint string
	}{
		{math.NaN(), "math.IsNaN"},
		{math.Inf(1), "Gt(Double(math.MaxFloat64))"},
		{math.Inf(-1), "Lt(Double(-math.MaxFloat64))"},
	} {
		_, err := Collect(New(tbl).Where(v.Eq(Double(c.x))).All(ctx))
		if !errors.Is(err, tablekit.ErrInvalid) || !strings.Contains(err.Error(), c.hint) {
			t.Errorf("Double(%v): err = %v, want tablekit.ErrInvalid naming %s", c.x, err, c.hint)
		}
	}
	if n := rec.Count() - before; n != 0 {
		t.Errorf("%d requests sent for invalid literals, want none", n)
	}
}
