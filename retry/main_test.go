package retry_test

import (
	"os"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
