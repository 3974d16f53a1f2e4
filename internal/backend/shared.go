package backend

import "math"

// TransactionOps is the most operations one $batch changeset holds, on
// both backends: Table Storage's "up to 100 entities" and Cosmos DB's
// ([Limits]) "Maximum number of operations in a transactional batch: 100".
const TransactionOps = 100

// PageSize is Table Storage's largest page ("A query ... can return a
// maximum of 1,000 entities at one time"), and the $top tablekit asks for
// by default on both backends.
const PageSize = 1000

// Unknown is the profile of a table whose endpoint tablekit cannot see: a
// table over an aztables client the user built (table.Wrap), since aztables
// does not expose a client's URL. Its limits are Table Storage's: the
// stricter reading of each would refuse entities and transactions Table
// Storage holds (Cosmos DB's 255-byte RowKey and reserved names), and
// Cosmos DB refuses what is over its own limits itself, with an error. It
// never assumes key order (a wrong guess there would skip or repeat
// entities silently), and has none of the calls Table Storage alone has.
func Unknown() Profile {
	p := storage()
	p.Kind = Auto
	p.KeyOrder = false
	p.ServiceProperties, p.ServiceStats, p.AccessPolicies, p.CORS, p.SecondaryLocation = false, false, false, false, false
	return p
}

// Lenient is what either backend accepts, for code that encodes an entity
// without a table (a conversion between entity types): the larger of each
// limit (Table Storage's keys in UTF-16 hold every key Cosmos DB's bytes
// do), no reserved names, and no entity size, which each backend measures
// its own way. A write checks the entity again against its table's
// profile.
func Lenient() Profile {
	p := storage()
	p.Kind = Auto
	p.MaxEntityBytes = math.MaxInt
	return p
}
