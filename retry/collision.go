package retry

import (
	"errors"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/internal/reqshape"
)

// ownCollision reports a failure that the write's own earlier success would
// cause, and which write it is: an insert answered 409 EntityAlreadyExists,
// a conditional update 412, a delete 404 or 412. After an attempt that may
// have reached the service, the loop reports it as
// *tablekit.MaybeCommittedError rather than as someone else's write.
func ownCollision(err error) (string, bool) {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return "", false
	}
	req := requestOf(re)
	switch {
	case re.StatusCode == http.StatusConflict && re.ErrorCode == codeEntityAlreadyExists && reqshape.EntityInsert(req):
		return "insert", true
	case re.StatusCode == http.StatusPreconditionFailed && reqshape.EntityUpdate(req):
		return "update", true
	case re.StatusCode == http.StatusPreconditionFailed && reqshape.EntityDelete(req),
		re.StatusCode == http.StatusNotFound && re.ErrorCode != codeTableNotFound && reqshape.EntityDelete(req):
		return "delete", true
	}
	return "", false
}

// isWrite reports a request that changes something: any method but GET and
// HEAD. Its reply lost after it may have reached the service leaves its
// outcome unknown.
func isWrite(req *http.Request) bool {
	return req != nil && req.Method != http.MethodGet && req.Method != http.MethodHead
}
