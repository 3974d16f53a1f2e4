// Package backend describes the two services tablekit talks to, Azure Table
// Storage and Azure Cosmos DB for Table, as a [Profile]: every limit and
// difference a client can check before it sends a request, written once.
// [Detect] tells them apart by the endpoint's host, as aztables does, and
// [For] lets an option force one (for a custom domain in front of Cosmos DB).
//
// Each Cosmos DB value names its source in its doc comment:
//
//   - [FAQ]: "Frequently asked questions about Azure Cosmos DB for Table",
//     learn.microsoft.com/azure/cosmos-db/table/faq (MicrosoftDocs/azure-databases-docs,
//     articles/cosmos-db/table/faq.yml, ms.date 06/11/2025), the section
//     "Where is API for Table not identical with Azure Table storage behavior?".
//   - [Limits]: "Azure Cosmos DB service quotas", learn.microsoft.com/azure/cosmos-db/concepts-limits
//     (articles/cosmos-db/concepts-limits.md): per-item and per-request limits
//     of Cosmos DB in general, not of the Table API in particular.
//   - [SDK]: Azure/azure-cosmos-dotnet-v3, Microsoft.Azure.Cosmos/src/direct/Constants.cs,
//     whose limits "should match ... Server settings.xml".
//   - [aztables]: github.com/Azure/azure-sdk-for-go/sdk/data/aztables v1.4.1
//     (constants.go, service_client.go, cosmos_patch_transform_policy.go).
//
// A value marked "unconfirmed" is not documented for the Table API; the
// comment says what was chosen and why. The Table Storage values come from
// the service's REST documentation ("Understanding the Table service data
// model", "Performing entity group transactions", "Query timeout and
// pagination") and the Table design guide.
package backend
