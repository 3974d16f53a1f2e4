package sas

import "strings"

// Permissions is the set of operations a table SAS (or a stored access
// policy) allows. Grant the least that the holder needs: a browser that only
// displays data gets Read, a device that only reports gets Add.
type Permissions uint8

// Table SAS permissions. Their string form follows the order the service
// documents, "raud".
const (
	Read   Permissions = 1 << iota // r: Query Entities and Get Entity
	Add                            // a: Insert Entity; with Update, the upserts
	Update                         // u: Update and Merge Entity; with Add, the upserts
	Delete                         // d: Delete Entity
)

const tableLetters = "raud"

// String returns the letters in the documented order, e.g. "ru" for
// Read|Update; "" for none.
func (p Permissions) String() string { return bitsString(uint16(p), tableLetters) }

// ParsePermissions reads a table permission string such as "raud" in any
// order. Unknown letters are an error wrapping ErrInvalid.
func ParsePermissions(s string) (Permissions, error) {
	b, err := parseBits(s, tableLetters, "Permissions")
	return Permissions(b), err
}

// AccountPermissions is the set of operations an account SAS allows on the
// table service.
type AccountPermissions uint16

// Account SAS permissions. Their string form follows the documented order
// "rwdlacup".
const (
	AccountRead    AccountPermissions = 1 << iota // r: read entities, service properties and statistics
	AccountWrite                                  // w: create tables, set service properties
	AccountDelete                                 // d: delete tables and entities
	AccountList                                   // l: list tables
	AccountAdd                                    // a: insert entities
	AccountCreate                                 // c: create tables
	AccountUpdate                                 // u: update and merge entities
	AccountProcess                                // p: not used by the table service; kept for the format
)

const accountLetters = "rwdlacup"

// String returns the letters in the documented order, e.g. "rl".
func (p AccountPermissions) String() string { return bitsString(uint16(p), accountLetters) }

// ResourceTypes is the set of resource types an account SAS covers: the
// service (properties, statistics), containers (tables) and objects
// (entities).
type ResourceTypes uint8

// Account SAS resource types, in the documented order "sco".
const (
	ResourceService   ResourceTypes = 1 << iota // s: Get/Set Service Properties, Get Service Stats
	ResourceContainer                           // c: Create, Delete and Query Tables
	ResourceObject                              // o: entity operations
)

const resourceLetters = "sco"

// String returns the letters in the documented order, e.g. "co".
func (r ResourceTypes) String() string { return bitsString(uint16(r), resourceLetters) }

func bitsString(b uint16, letters string) string {
	var sb strings.Builder
	for i := 0; i < len(letters); i++ {
		if b&(1<<i) != 0 {
			sb.WriteByte(letters[i])
		}
	}
	return sb.String()
}

func parseBits(s, letters, field string) (uint16, error) {
	var b uint16
	for _, r := range s {
		i := strings.IndexRune(letters, r)
		if i < 0 {
			return 0, invalid(field, "unknown letter (allowed: "+letters+")")
		}
		b |= 1 << i
	}
	return b, nil
}

// unknownBits reports bits outside the first n.
func unknownBits(b uint16, n int) bool { return b>>n != 0 }
