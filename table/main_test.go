package table_test

import (
	"os"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

type recorder = testenv.Recorder

// newRecordedTable opens a new, created table of T on Azurite through a
// recorder of its requests.
func newRecordedTable[T any](t *testing.T, o *table.Options) (*table.Table[T], *recorder) {
	t.Helper()
	rec := testenv.NewRecorder()
	var opts table.Options
	if o != nil {
		opts = *o
	}
	opts.Transport = rec
	return testenv.NewTable[T](t, testenv.Azurite(t).NewService(t, &opts)), rec
}
