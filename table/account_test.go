package table_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
	"github.com/tablekit/tablekit/table"
)

func newService(t *testing.T, o *table.Options) *table.Service {
	t.Helper()
	env := testenv.Azurite(t)
	svc, err := table.NewService(env.ConnectionString, o)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestTablesPrefix(t *testing.T) {
	svc := newService(t, nil)
	ctx := testenv.Ctx(t)
	base := testenv.TableName(t)
	names := []string{base + "a", base + "b", base + "c"}
	for _, n := range append(slices.Clone(names), "x"+base) {
		if err := svc.CreateTable(ctx, n); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.DeleteTable(ctx, n) })
	}
	tests := []struct {
		name string
		o    *table.ListTablesOptions
		stop int // break after this many; 0 reads all
		want []string
	}{
		{"prefix, one per page", &table.ListTablesOptions{Prefix: base, PageSize: 1}, 0, names},
		{"prefix, default page", &table.ListTablesOptions{Prefix: base}, 0, names},
		{"break early", &table.ListTablesOptions{Prefix: base, PageSize: 1}, 2, names[:2]},
		{"prefix of one", &table.ListTablesOptions{Prefix: base + "b"}, 0, names[1:2]},
		{"no match", &table.ListTablesOptions{Prefix: base + "z"}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for n, err := range svc.Tables(ctx, tt.o) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, n)
				if len(got) == tt.stop {
					break
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tables(%+v) = %v, want %v", tt.o, got, tt.want)
			}
		})
	}
	// Without a prefix every table is listed, ours among them.
	var all []string
	for n, err := range svc.Tables(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, n)
	}
	for _, n := range append(slices.Clone(names), "x"+base) {
		if !slices.Contains(all, n) {
			t.Errorf("Tables(nil) lacks %s", n)
		}
	}
}

func TestTablesOptionsAndErrors(t *testing.T) {
	svc := newService(t, nil)
	for _, size := range []int32{-1, 1001} {
		for _, err := range svc.Tables(testenv.Ctx(t), &table.ListTablesOptions{PageSize: size}) {
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("PageSize %d: error = %v, want tablekit.ErrInvalid", size, err)
			}
		}
	}
	// Create and delete keep their typed results: creating twice and
	// deleting a missing table are no errors, a bad name is refused.
	ctx := testenv.Ctx(t)
	name := testenv.TableName(t)
	for i := range 2 {
		if err := svc.CreateTable(ctx, name); err != nil {
			t.Fatalf("CreateTable #%d: %v", i+1, err)
		}
	}
	for i := range 2 {
		if err := svc.DeleteTable(ctx, name); err != nil {
			t.Fatalf("DeleteTable #%d: %v", i+1, err)
		}
	}
	if err := svc.CreateTable(ctx, "no"); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("CreateTable(\"no\") = %v, want tablekit.ErrInvalid", err)
	}
}

func TestServiceProperties(t *testing.T) {
	svc := newService(t, nil)
	ctx := testenv.Ctx(t)
	before, err := svc.Properties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.SetProperties(ctx, before) })
	rule := &aztables.CorsRule{
		AllowedOrigins:  to.Ptr("https://app.example.com"),
		AllowedMethods:  to.Ptr("GET,PUT"),
		AllowedHeaders:  to.Ptr("x-ms-*"),
		ExposedHeaders:  to.Ptr("x-ms-request-id"),
		MaxAgeInSeconds: to.Ptr[int32](600),
	}
	if err := svc.SetProperties(ctx, aztables.ServiceProperties{Cors: []*aztables.CorsRule{rule}}); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Properties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cors) != 1 || *got.Cors[0].AllowedOrigins != *rule.AllowedOrigins || *got.Cors[0].MaxAgeInSeconds != 600 {
		t.Errorf("Cors after SetProperties = %+v, want the one rule %+v", got.Cors, rule)
	}
}

// Azurite answers Stats on the account's secondary path, where it is sent;
// asked on the primary's path (an explicit SecondaryEndpoint that is the
// primary) it answers 400, which must come back as a typed tablekit error
// with the response still reachable.
func TestStatsOnAzurite(t *testing.T) {
	st, err := newService(t, &table.Options{Retry: &retry.Policy{MaxAttempts: 1}}).Stats(testenv.Ctx(t))
	if err != nil || st.Status != aztables.GeoReplicationStatusLive {
		t.Errorf("Stats = %+v, %v; want live", st, err)
	}
	env := testenv.Azurite(t)
	_, err = newService(t, &table.Options{Retry: &retry.Policy{MaxAttempts: 1}, SecondaryEndpoint: env.Endpoint}).Stats(testenv.Ctx(t))
	var se *tablekit.ServiceError
	if !errors.As(err, &se) {
		t.Fatalf("Stats error = %v, want a *tablekit.ServiceError", err)
	}
	if !errors.Is(err, tablekit.ErrService) {
		t.Errorf("Stats error = %v, want tablekit.ErrService", err)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Errorf("Stats error %v does not keep the *azcore.ResponseError", err)
	}
}
