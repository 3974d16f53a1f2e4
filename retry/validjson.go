package retry

import "github.com/tablekit/tablekit/internal/wire"

// validJSON reports whether data is one JSON value, as json.Valid does:
// the shared scanner's Skip checks the syntax without building anything,
// several times faster than json.Valid's state machine (a call per byte),
// which was a third of the client CPU of a decoded query page.
func validJSON(data []byte) bool {
	s := wire.Scanner{Data: data}
	return s.Skip() == nil && s.End() == nil
}
