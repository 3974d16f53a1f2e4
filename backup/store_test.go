package backup_test

import (
	"os"
	"testing"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/devtools/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// testenv.Store is backup.Store's method set, declared again to keep
// testenv free of package backup: the two must stay the same.
var (
	_ testenv.Store = backup.Store(nil)
	_ backup.Store  = testenv.Store(nil)
)

func TestDirStore(t *testing.T) {
	testenv.CheckStore(t, backup.Dir(t.TempDir()+"/backups"))
}
