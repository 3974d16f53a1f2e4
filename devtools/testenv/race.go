//go:build race

package testenv

// Race reports whether the race detector is on (go test -race).
const Race = true
