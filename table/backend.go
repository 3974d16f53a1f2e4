package table

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/errmap"
)

// Backend is the service behind an endpoint: Table Storage or Cosmos DB for
// Table, one REST API with different limits, calls and query order, which
// tablekit checks each request against before sending it.
type Backend int

const (
	// DetectBackend, the default, tells the backend by the endpoint's host, as
	// aztables does: Cosmos DB for its hosts (and localhost:8902, the Cosmos
	// DB emulator), Table Storage for any other.
	DetectBackend Backend = iota
	// TableStorage is Azure Table Storage (and Azurite, which emulates it).
	TableStorage
	// CosmosDB is Azure Cosmos DB for Table. Choose it for a custom domain
	// in front of a Cosmos DB account.
	CosmosDB
)

func (b Backend) String() string {
	switch b {
	case DetectBackend:
		return "DetectBackend"
	case TableStorage:
		return "TableStorage"
	case CosmosDB:
		return "CosmosDB"
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// kind is b as internal/backend names it.
func (b Backend) kind() (backend.Kind, bool) {
	switch b {
	case DetectBackend:
		return backend.Auto, true
	case TableStorage:
		return backend.TableStorage, true
	case CosmosDB:
		return backend.CosmosDB, true
	}
	return backend.Auto, false
}

// backendOf is the Backend of a concrete kind.
func backendOf(k backend.Kind) Backend {
	if k == backend.CosmosDB {
		return CosmosDB
	}
	return TableStorage
}

// kind is Options.Backend as internal/backend names it; an unknown value
// is tablekit.ErrInvalid.
func (o *Options) kind() (backend.Kind, error) {
	if o == nil {
		return backend.Auto, nil
	}
	k, ok := o.Backend.kind()
	if !ok {
		return backend.Auto, errmap.Invalidf("", "Backend", "unknown value %v", o.Backend)
	}
	return k, nil
}

// profile is the profile of the backend at endpoint: Options.Backend's, or
// the one its host names.
func (o *Options) profile(endpoint string) (backend.Profile, error) {
	k, err := o.kind()
	if err != nil {
		return backend.Profile{}, err
	}
	return backend.For(endpoint, k)
}

// Backend is the backend of the service: Options.Backend, or the one the
// endpoint's host names. DetectBackend for a zero Service.
func (s *Service) Backend() Backend {
	if s.ready() != nil {
		return DetectBackend
	}
	return backendOf(s.core().Conn().Profile().Kind)
}
