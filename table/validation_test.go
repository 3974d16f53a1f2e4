package table_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

type Valid struct {
	PartitionKey, RowKey string
	S                    string
	B                    []byte
	I                    int
	F                    float64
}

// Every validation rule fails before any request is sent.
func TestValidationSendsNothing(t *testing.T) {
	tbl, rec := newRecordedTable[Valid](t, nil)
	ctx := testenv.Ctx(t)
	ok := Valid{PartitionKey: "p", RowKey: "r"}
	with := func(f func(*Valid)) Valid { v := ok; f(&v); return v }
	entities := []struct {
		name string
		e    Valid
		rule string
	}{
		{"slash in key", with(func(v *Valid) { v.PartitionKey = "a/b" }), "key contains"},
		{"hash in key", with(func(v *Valid) { v.RowKey = "a#b" }), "key contains"},
		{"control in key", with(func(v *Valid) { v.RowKey = "a\nb" }), "key contains"},
		{"long key", with(func(v *Valid) { v.RowKey = strings.Repeat("k", 1025) }), "key too long (1025 UTF-16 code units, at most 1024)"},
		{"long string", with(func(v *Valid) { v.S = strings.Repeat("s", 32*1024+1) }), "string too long (32769 UTF-16 code units, at most 32768)"},
		{"large binary", with(func(v *Valid) { v.B = make([]byte, 64*1024+1) }), "binary value too large (65537 bytes, at most 65536)"},
		{"int32 range", with(func(v *Valid) { v.I = math.MaxInt32 + 1 }), "Int32"},
	}
	writes := []struct {
		name string
		do   func(context.Context, Valid) error
	}{
		{"Add", func(ctx context.Context, e Valid) error { _, err := tbl.Add(ctx, e); return err }},
		{"Upsert", func(ctx context.Context, e Valid) error { _, err := tbl.Upsert(ctx, e, table.Merge); return err }},
		{"Update", func(ctx context.Context, e Valid) error {
			_, err := tbl.Update(ctx, e, table.Replace, table.AnyETag)
			return err
		}},
	}
	before := rec.Count()
	for _, w := range writes {
		for _, tc := range entities {
			err := w.do(ctx, tc.e)
			var ve *tablekit.ValidationError
			if !errors.Is(err, tablekit.ErrInvalid) || !errors.As(err, &ve) {
				t.Errorf("%s %s: err = %v, want a tablekit.ValidationError", w.name, tc.name, err)
				continue
			}
			if !strings.Contains(err.Error(), tc.rule) {
				t.Errorf("%s %s: err = %q, want it to name the rule %q", w.name, tc.name, err, tc.rule)
			}
		}
	}
	keyed := []struct {
		name string
		err  error
		want error
	}{
		{"Get bad key", func() error { _, err := tbl.Get(ctx, "a?b", "r", nil); return err }(), tablekit.ErrInvalid},
		{"Delete bad key", tbl.Delete(ctx, "p", "a\\b", table.AnyETag), tablekit.ErrInvalid},
		{"Delete no ETag", tbl.Delete(ctx, "p", "r", ""), tablekit.ErrInvalid},
		{"Update no ETag", func() error { _, err := tbl.Update(ctx, ok, table.Merge, ""); return err }(), tablekit.ErrInvalid},
		{"Upsert unknown mode", func() error { _, err := tbl.Upsert(ctx, ok, 7); return err }(), tablekit.ErrInvalid},
		{"Get bad select", func() error {
			_, err := tbl.Get(ctx, "p", "r", &table.GetOptions{Select: []string{"X"}})
			return err
		}(), tablekit.ErrInvalid},
	}
	for _, tc := range keyed {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if got := rec.Count() - before; got != 0 {
		t.Errorf("%d requests sent for invalid input, want 0", got)
	}
}

func TestNewRejectsBadTypesAndNames(t *testing.T) {
	type NoKeys struct{ Name string }
	type Nested struct {
		PartitionKey, RowKey string
		Inner                struct{ A int }
	}
	svc, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.New[NoKeys](svc, "valid"); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("New[NoKeys]: err = %v, want tablekit.ErrInvalid", err)
	}
	_, err = table.New[Nested](svc, "valid")
	var te *tablekit.ValidationError
	if !errors.As(err, &te) || te.Field != "Inner" {
		t.Errorf("New[Nested]: err = %v, want a tablekit.ValidationError naming Inner", err)
	}
	for _, name := range []string{"", "ab", "1abc", "a-b", "tables", "Tables", strings.Repeat("a", 64)} {
		if _, err := table.New[Valid](svc, name); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("New(%q): err = %v, want tablekit.ErrInvalid", name, err)
		}
	}
	for _, name := range []string{"abc", "A1b2C3", strings.Repeat("a", 63)} {
		if _, err := table.New[Valid](svc, name); err != nil {
			t.Errorf("New(%q): %v", name, err)
		}
	}
}
