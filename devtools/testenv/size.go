package testenv

import "testing"

// Size is how much work a long test (a soak) does: full in a plain
// `go test`, reduced under -short or the race detector. The race detector
// needs the concurrent paths taken, not volume, and makes every entity
// several times dearer; the volume is checked at full size without it
// (`make test` runs the soaks once more, without -race: every test whose
// name starts with TestSoak).
func Size(full, reduced int) int {
	if testing.Short() || Race {
		return reduced
	}
	return full
}

// SkipAllocsUnderRace skips a TestAllocs test under -race, whose sync.Pool
// drops a quarter of what it is given: the counts would be the race
// detector's. make test runs the TestAllocs tests again without it.
func SkipAllocsUnderRace(t *testing.T) {
	t.Helper()
	if Race {
		t.Skip("allocation counts under -race are the race detector's; make test runs TestAllocs* without it")
	}
}
