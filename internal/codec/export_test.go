package codec

import "testing"

// GivingBack starts a test with no properties' buffer given back yet
// (ReleaseRawProps), and leaves it so: the other tests read properties of
// exactly their length.
func GivingBack(t testing.TB) {
	t.Helper()
	reset := func() {
		propsGiven.Store(false)
		for i := range propsPool {
			for propsPool[i].Get() != nil {
			}
		}
	}
	reset()
	t.Cleanup(reset)
}
