package table

import "github.com/tablekit/tablekit/internal/codec"

// ToEntity converts a typed entity into an Entity, as writing it and
// reading it back would: each property gets the Go type of the EDM type
// T's field is stored as (an int becomes an int32, a uint32 an int64, a
// TextMarshaler a string), and the zero time.Time and nil pointers are
// left out. e must obey every write rule. ETag and Timestamp carry over.
// Use it to put rows of several Go types in one Table[Entity] transaction.
func ToEntity[T any](e T) (Entity, error) { return codec.Convert[Entity](e) }

// FromEntity converts an Entity into T, as reading the stored entity into
// T would: a property whose EDM type T's field cannot hold is a
// *tablekit.DecodeError, and properties T does not map are ignored. ETag and
// Timestamp carry over. Use it to decode the rows of a mixed query by
// their discriminator.
func FromEntity[T any](e Entity) (T, error) { return codec.Convert[T](e) }
