package table_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

func ctxT(t *testing.T) context.Context { return testenv.Context(t, 2*time.Minute) }

type recorder = testenv.Recorder

// newTable opens a new, created table of T on Azurite through a recorder.
func newTable[T any](t *testing.T, o *table.Options) (*table.Table[T], *recorder) {
	t.Helper()
	rec := testenv.NewRecorder()
	var opts table.Options
	if o != nil {
		opts = *o
	}
	opts.Transport = rec
	return testenv.NewTable[T](t, testenv.Azurite(t).NewService(t, &opts)), rec
}
