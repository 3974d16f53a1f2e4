package batch_test

import (
	"os"
	"testing"

	"github.com/tablekit/tablekit/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
