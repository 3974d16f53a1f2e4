package backend

// cosmosReserved is the property names Cosmos DB keeps for itself. [FAQ]:
// "Azure Cosmos DB reserves the entity property names ID, rid, etag, and
// ResourceId and they're currently not supported." Unconfirmed: whether the
// comparison ignores case, and whether the service refuses such a property
// or drops it; Reserved compares them exactly as written.
func cosmosReserved() [4]string { return [4]string{"ID", "rid", "etag", "ResourceId"} }

// cosmos is Azure Cosmos DB for Table. The sources are listed in the
// package documentation.
func cosmos() Profile {
	return Profile{
		Kind: CosmosDB,
		// [Limits]: "Maximum number of operations in a transactional batch:
		// 100". [FAQ]: "Batches can only have up to 2 MBs." Read as 2 MiB:
		// Cosmos DB's own SDK sizes in MiB ([SDK] MaxResourceSizeInBytes is
		// 2 MiB - 1) and its server's batch request limit is larger
		// ([SDK] MaxDirectModeBatchRequestBodySizeInBytes = 2,202,010).
		// Unconfirmed: that the Table API measures the multipart $batch body
		// (rather than the entities in it) against this limit.
		MaxTransactionOps:   TransactionOps,
		MaxTransactionBytes: 2 << 20,
		// [Limits]: "Maximum size of an item: 2 MB (UTF-8 length of JSON
		// representation)"; [SDK]: MaxResourceSizeInBytes = (2 * 1024 *
		// 1024) - 1, "should match (maxResourceSize - resourceSizePadding)
		// from Server settings.xml". The service measures its own JSON of
		// the item (system fields included, and [FAQ] binary values grow in
		// "internal formats"), so a client's measure of the entity's JSON is
		// a lower bound: an entity just under the limit may still be refused.
		MaxEntityBytes: 2<<20 - 1,
		EntitySize:     JSONBytes,
		// [FAQ]: "Row keys can only be up to 255 bytes"; "The length of
		// RowKey is 255 bytes and the length of PartitionKey is 1 KB."
		// Unconfirmed: the encoding of "bytes"; UTF-8 is assumed, which for
		// any non-ASCII key is the stricter reading.
		PartitionKey: Limit{Max: 1024, Unit: UTF8Bytes},
		RowKey:       Limit{Max: 255, Unit: UTF8Bytes},
		// Unconfirmed for the Table API: [Limits] says items have "no
		// practical limit" on the number of properties, property name and
		// value lengths. Table Storage's limits are kept, so an entity
		// written to either backend can move to the other, and because [FAQ]
		// warns that binary values take more room than their size.
		MaxProperties:   252,
		MaxPropertyName: 255,
		MaxString:       Limit{Max: 32 << 10, Unit: UTF16Units},
		MaxBinaryBytes:  64 << 10,
		// [FAQ]: "Table names in Azure Table storage aren't case-sensitive,
		// but they are in Azure Cosmos DB for Table." Table-name syntax is
		// not documented for the Table API; Table Storage's rules
		// (internal/wire) are kept.
		TableNamesCaseSensitive: true,
		// [FAQ]: "Query results returned by the API for Table aren't sorted
		// in partition key/row key order as they are in Azure Table storage."
		KeyOrder: false,
		// [FAQ]: "TableQuery TakeCount isn't limited to 1000."
		MaxPageSize: 0,

		// [FAQ], REST table: Table Storage "(but not Azure Cosmos DB for
		// Table)" supports service properties, CORS preflight, service stats
		// and table ACLs; "CORS isn't currently supported". Secondary: "the
		// API for Table throws an error if LocationMode is set"; Cosmos DB
		// replicates by its own regions, and <account>-secondary hosts do
		// not exist.
		ServiceProperties: false,
		ServiceStats:      false,
		AccessPolicies:    false,
		CORS:              false,
		SecondaryLocation: false,
		// [aztables] cosmos_patch_transform_policy.go sends every merge (and
		// every merge inside a $batch) to a Cosmos DB endpoint as POST with
		// "X-HTTP-Method: MERGE". Unconfirmed: whether the service refuses
		// PATCH.
		MergeAsPost: true,
	}
}
