package tablekit_test

import (
	"testing"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestZeroValuesDoNotPanic calls every exported method of every exported
// type on a zero value with zero arguments: each returns, none panics.
func TestZeroValuesDoNotPanic(t *testing.T) {
	zero := map[string]any{
		"ServiceError": new(tablekit.ServiceError), "ValidationError": new(tablekit.ValidationError),
		"DecodeError": new(tablekit.DecodeError), "MaybeCommittedError": new(tablekit.MaybeCommittedError),
	}
	testenv.CheckZeroValues(t, zero)
}
