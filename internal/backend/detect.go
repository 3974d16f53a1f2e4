package backend

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// The host parts by which aztables recognises Cosmos DB ([aztables]
// constants.go: cosmosTableDomain, legacyCosmosTableDomain).
const (
	cosmosDomain       = ".table.cosmos."
	legacyCosmosDomain = ".table.cosmosdb."
)

// emulatorPort is the Cosmos DB emulator's Table API port on localhost,
// which aztables also treats as Cosmos DB (service_client.go).
const emulatorPort = "8902"

// Detect tells the backend of an endpoint (a service or table URL) by its
// host, as aztables does: a host containing ".table.cosmos." or
// ".table.cosmosdb." (<account>.table.cosmos.azure.com, the legacy
// .table.cosmosdb.azure.com and sovereign clouds' suffixes) or localhost on
// port 8902 (the Cosmos DB emulator) is CosmosDB; anything else, custom
// domains included, is TableStorage. aztables tests the whole URL for these
// strings; Detect tests only the host, so a path or query cannot change it.
func Detect(endpoint string) Kind {
	u, err := url.Parse(endpoint)
	if err != nil {
		return TableStorage
	}
	host := strings.ToLower(u.Host)
	if strings.Contains(host, cosmosDomain) || strings.Contains(host, legacyCosmosDomain) {
		return CosmosDB
	}
	if h, port, err := net.SplitHostPort(host); err == nil && h == "localhost" && port == emulatorPort {
		return CosmosDB
	}
	return TableStorage
}

// For is the profile of the backend at endpoint: the one force names, or,
// when force is Auto, the one Detect finds. An unknown Kind is an error.
func For(endpoint string, force Kind) (Profile, error) {
	switch force {
	case Auto:
		return Of(Detect(endpoint)), nil
	case TableStorage, CosmosDB:
		return Of(force), nil
	}
	return Profile{}, fmt.Errorf("backend: unknown backend %v", force)
}

// Of is the profile of a concrete backend. It panics on Auto or an unknown
// Kind: those need an endpoint (For).
func Of(k Kind) Profile {
	switch k {
	case TableStorage:
		return storage()
	case CosmosDB:
		return cosmos()
	}
	panic(fmt.Sprintf("backend.Of(%v): not a concrete backend", k))
}
