package retry

import (
	"errors"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/internal/opdesc"
)

// ownCollision reports a failure that the operation's own earlier success
// would cause (opdesc.Desc.OwnCollision), and the operation. After an
// attempt that may have reached the service, the loop reports it as
// *tablekit.MaybeCommittedError rather than as someone else's write. Do
// cannot see the request of its op: the failed response's request, which
// aztables built, is described from its shape.
func ownCollision(d opdesc.Desc, err error) (opdesc.Desc, bool) {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return d, false
	}
	if d.Kind == opdesc.Other {
		d = opdesc.Infer(requestOf(re))
	}
	return d, d.OwnCollision(re.StatusCode, re.ErrorCode)
}
