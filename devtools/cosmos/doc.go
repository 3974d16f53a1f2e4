// Package cosmos is a stand-in for an Azure Cosmos DB for Table account, for
// tests: no Cosmos DB emulator runs on Linux (Microsoft's FAQ for the Table
// API: "Can I use the API for Table SDK locally with the emulator? Not at
// this time."), so this in-process endpoint on 127.0.0.1 plays the Table
// API's documented rules in front of Azurite, which keeps storing and
// reading the entities.
//
//	env := testenv.Azurite(t)
//	cs, err := cosmos.Start(env.Endpoint, nil)
//	defer cs.Close()
//	svc, err := table.NewServiceWithSharedKey(cs.Endpoint(), env.Account, env.Key,
//		&table.Options{Transport: cs.Client()})
//
// The account is Azurite's (devstoreaccount1 and its key), reached as
// https://devstoreaccount1.table.cosmos.azure.com (or the legacy
// .table.cosmosdb.azure.com): Client dials those names to the stand-in's
// listener and trusts its certificate, so code that tells Cosmos DB from
// Table Storage by the host sees a Cosmos DB account.
//
// # What it plays
//
//   - Limits, from internal/backend's Cosmos DB profile: a $batch body over
//     2 MiB and an entity over 2 MiB - 1 bytes of JSON are answered 413, a
//     RowKey over 255 bytes, a PartitionKey over 1 KiB and the reserved
//     property names (ID, rid, etag, ResourceId) 400; inside a $batch as a
//     202 whose failing operation carries the status and the others 424.
//   - Throttling: 429 "Request rate is large" with or without
//     x-ms-retry-after-ms, by rule and count ([Server.SetThrottle]) or by a
//     rate ([Server.SetThroughput]).
//   - Query results not in key order, in pages of $top with opaque
//     continuations of the stand-in's own ([Order]: the same order on every
//     read, or one that changes between reads without changing under a run
//     that follows its continuations).
//   - The calls the Table API does not have (service properties and stats,
//     table ACLs, CORS preflight, a -secondary host) answer 501
//     NotImplemented and are counted ([Stats].Unsupported).
//   - Merges as aztables sends them to Cosmos DB (POST with X-HTTP-Method:
//     MERGE), at the top level and inside a $batch.
//
// Where Azurite would refuse a request Cosmos DB takes, the stand-in makes
// it pass: an update, upsert or merge of an entity between 1 MiB (Azurite's
// limit for those verbs, also inside a changeset) and 2 MiB is written in
// steps, the client's own request first ([Stats].LargeWrites): the entity
// ends up exact, but the steps are not atomic. The status codes and error
// bodies of the stand-in's own answers follow what issue trackers show of
// Cosmos DB; the source says which codes are guesses.
//
// # What it does not play
//
// Table names stay case-insensitive (Azurite's; Cosmos DB's are
// case-sensitive). Per-property limits are Azurite's, which are Table
// Storage's and the Cosmos DB profile's; a key over 512 characters, legal
// on Cosmos DB up to its limits, is refused by Azurite. Request units are
// not computed, Timestamp and ETag values are Azurite's, and a $batch
// without a changeset is passed to Azurite as it is.
//
// It sends Azurite requests of its own (a query's other pages, the steps of
// a large write) with the client's headers and query: that works for Shared
// Key Lite, which signs only the date and the path, and for a SAS (both
// tested); bearer tokens are not tried. A SAS must allow http
// (spr=https,http): Azurite checks a SAS's protocol against its own
// connection, which is the stand-in's plain http.
//
// Another process (the tablekit command in its end-to-end tests) reaches
// the stand-in through [Server.StartProxy]: a CONNECT proxy on 127.0.0.1
// for the account's host names only, and the stand-in's certificate in a
// file; [Proxy.Env] is the environment (HTTPS_PROXY, SSL_CERT_FILE) to give
// it. [Server.SetLatency] slows every request down, for a test that
// interrupts a run.
//
// After [Server.Close] returns, none of its goroutines is still running a
// request.
package cosmos
