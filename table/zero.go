package table

import (
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/errmap"
)

// Zero values and nil handles are programming errors, but they must be
// reported as errors, never as panics deep inside aztables: these checks
// run first in every method that would touch what New or NewService builds.

var (
	errZeroTable   = errmap.Invalid("", "table", "zero or nil Table (open tables with table.New or Wrap)")
	errZeroService = errmap.Invalid("", "service", "zero or nil Service (make it with table.NewService or a sibling)")
)

// ready reports a Table that New did not make.
func (t *Table[T]) ready() error {
	if !t.handle().Usable() {
		return errZeroTable
	}
	return nil
}

// ready reports a Service that NewService did not make.
func (s *Service) ready() error {
	if s == nil || s.core().Raw() == nil || s.core().Conn() == nil {
		return errZeroService
	}
	return nil
}

// refusingServiceClient is what Raw returns for a zero Service: an aztables
// client whose transport fails every request with errZeroService, with
// azcore's retries off, so that the error comes back at once and nothing
// leaves the process. It is built per call: a zero Service is a mistake to
// report, not a path to make fast.
func refusingServiceClient() *aztables.ServiceClient {
	c, err := aztables.NewServiceClientWithNoCredential("https://zero.invalid/", &aztables.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: refuseTransport{}, Retry: policy.RetryOptions{MaxRetries: -1}},
	})
	if err != nil {
		panic("table: the client of a zero Service: " + err.Error()) // a constant URL: cannot fail
	}
	return c
}

// refuseTransport fails every request with errZeroService.
type refuseTransport struct{}

func (refuseTransport) Do(*http.Request) (*http.Response, error) { return nil, errZeroService }

// errETagRequired: Update or Delete got an empty ETag.
var errETagRequired = errmap.Invalid("", "ETag", "required (pass the entity's ETag, or table.AnyETag for an unconditional write)")
