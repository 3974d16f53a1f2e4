package testenv

import "os"

// FastPathOff reports TABLEKIT_FAST_PATH=off: the shared helpers then build
// tables with table.Options.NoFastPath, so that `make test` runs the same
// tests over aztables' own encoding and decoding too.
func FastPathOff() bool { return os.Getenv("TABLEKIT_FAST_PATH") == "off" }
