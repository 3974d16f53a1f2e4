package retry_test

import (
	"slices"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/retry"
)

// TestZeroValuesDoNotPanic calls every exported method of every exported
// type on a zero value with zero arguments: each returns, none panics.
func TestZeroValuesDoNotPanic(t *testing.T) {
	zero := map[string]any{
		"Event": new(retry.Event), "Policy": new(retry.Policy),
	}
	var listed []string
	for name := range zero {
		listed = append(listed, name)
	}
	slices.Sort(listed)
	if got := testenv.ExportedTypes(t, "."); !slices.Equal(got, listed) {
		t.Fatalf("exported types %v, listed %v: add the new type here", got, listed)
	}
	for name, v := range zero {
		testenv.CheckZeroMethods(t, name, v)
	}
	if err := retry.Do(t.Context(), nil, nil); err == nil {
		t.Errorf("Do with a nil op: err = nil, want an error")
	}
}
