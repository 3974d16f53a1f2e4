package backup_test

import (
	"os"
	"testing"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/devtools/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

func TestDirStore(t *testing.T) {
	testenv.CheckStore(t, backup.Dir(t.TempDir()+"/backups"))
}
