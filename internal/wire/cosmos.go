package wire

import "strings"

// IsCosmosEndpoint reports an endpoint of the Cosmos DB Table API by the
// test aztables applies (service_client.go): a .table.cosmos. or
// .table.cosmosdb. host, or the Cosmos DB emulator (localhost, port 8902).
// Such endpoints take merges as POST with X-HTTP-Method: MERGE and bearer
// tokens for the cloud's Cosmos DB audience.
func IsCosmosEndpoint(u string) bool {
	emulator := strings.Contains(u, "localhost") && strings.Contains(u, "8902")
	return emulator || strings.Contains(u, ".table.cosmos.") || strings.Contains(u, ".table.cosmosdb.")
}
