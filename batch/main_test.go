package batch_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/testenv"
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

// run gives the examples, which read TABLEKIT_CONNECTION_STRING as user
// code would, the same emulator as the tests: the one `make test` started,
// or one started here (and shared with testenv through
// TABLEKIT_AZURITE_ENDPOINT). Without an emulator the examples are left out
// (or, when it is required, the run fails) and the tests skip as usual.
func run(m *testing.M) int {
	flag.Parse()
	if os.Getenv("TABLEKIT_CONNECTION_STRING") == "" {
		ep := os.Getenv("TABLEKIT_AZURITE_ENDPOINT")
		if ep == "" {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			srv, err := azurite.Start(ctx)
			cancel()
			switch {
			case err == nil:
				defer srv.Stop()
				ep = srv.Endpoint()
				os.Setenv("TABLEKIT_AZURITE_ENDPOINT", ep)
			case testenv.Required():
				fmt.Fprintln(os.Stderr, "batch: Azurite is required (TABLEKIT_REQUIRE_AZURITE=1) but unavailable:", err)
				return 1
			default:
				fmt.Fprintln(os.Stderr, "batch: Azurite unavailable, examples not run:", err)
				if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" {
					_ = flag.Set("test.run", "^(Test|Fuzz)")
				}
			}
		}
		if ep != "" {
			os.Setenv("TABLEKIT_CONNECTION_STRING", azurite.ConnectionString(ep))
		}
	}
	return testenv.Run(m)
}
