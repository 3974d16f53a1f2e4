package backend

// storage is Azure Table Storage. Its limits are the service's documented
// ones ("Understanding the Table service data model", "Performing entity
// group transactions", "Query timeout and pagination").
func storage() Profile {
	return Profile{
		Kind: TableStorage,
		// "up to 100 entities ... the request payload doesn't exceed 4 MB";
		// the design guide says "less than 4 MB": a body of 4 MiB is refused.
		MaxTransactionOps:   TransactionOps,
		MaxTransactionBytes: 4<<20 - 1,
		// "An entity can be up to 1 MB in size", by the documented formula.
		MaxEntityBytes: 1 << 20,
		EntitySize:     StorageFormula,
		// "String up to 1 KiB" each; the service counts UTF-16 code units.
		PartitionKey: Limit{Max: 1024, Unit: UTF16Units},
		RowKey:       Limit{Max: 1024, Unit: UTF16Units},
		// 255 properties including PartitionKey, RowKey and Timestamp.
		MaxProperties:   252,
		MaxPropertyName: 255,
		// "A string value may be up to 64 KiB": 32 Ki UTF-16 code units.
		MaxString:      Limit{Max: 32 << 10, Unit: UTF16Units},
		MaxBinaryBytes: 64 << 10,
		// Table names are case-insensitive on Table Storage.
		TableNamesCaseSensitive: false,
		KeyOrder:                true,
		// "A query ... can return a maximum of 1,000 entities at one time".
		MaxPageSize: PageSize,

		ServiceProperties: true,
		ServiceStats:      true,
		AccessPolicies:    true,
		CORS:              true,
		SecondaryLocation: true,
		MergeAsPost:       false,
	}
}
