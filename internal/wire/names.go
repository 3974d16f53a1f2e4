package wire

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rules broken by table and property names.
const (
	RuleTableNameLength   = "table name must have 3 to 63 characters"
	RuleTableNameStart    = "table name must start with a letter"
	RuleTableNameChars    = "table name must contain only letters and digits"
	RuleTableNameReserved = `"tables" is a reserved table name`

	RulePropertyNameEmpty    = "property name is empty"
	RulePropertyNameReserved = "property name is reserved by the service"
	RulePropertyNameUTF8     = "property name is not valid UTF-8"
	RulePropertyNameChars    = "property name is not a valid identifier (letters, digits and _; not starting with a digit)"
)

// CheckTableName applies the service's rules: 3 to 63 ASCII letters and
// digits, starting with a letter, and not "tables" in any case.
func CheckTableName(name string) *Violation {
	if len(name) < 3 || len(name) > 63 {
		return &Violation{Rule: RuleTableNameLength, Detail: strconv.Itoa(len(name)) + " bytes"}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter {
			return &Violation{Rule: RuleTableNameStart}
		}
		if !letter && (c < '0' || c > '9') {
			return &Violation{Rule: RuleTableNameChars, Detail: "at byte " + strconv.Itoa(i)}
		}
	}
	if strings.EqualFold(name, "tables") {
		return &Violation{Rule: RuleTableNameReserved}
	}
	return nil
}

// IsSystemProperty reports the names the service keeps for itself.
func IsSystemProperty(name string) bool {
	return name == "PartitionKey" || name == "RowKey" || name == "Timestamp"
}

// CheckPropertyName applies the rules every backend has to the name of a
// property other than the keys: a C#-identifier-like name that is not a
// system property. How long it may be, and which other names a backend
// keeps for itself, are the backend's (internal/backend).
func CheckPropertyName(name string) *Violation {
	if name == "" {
		return &Violation{Rule: RulePropertyNameEmpty}
	}
	if IsSystemProperty(name) {
		return &Violation{Rule: RulePropertyNameReserved, Detail: strconv.Quote(name)}
	}
	if !utf8.ValidString(name) {
		return &Violation{Rule: RulePropertyNameUTF8}
	}
	for i, r := range name {
		ok := r == '_' || unicode.IsLetter(r) || (i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)))
		if !ok {
			return &Violation{Rule: RulePropertyNameChars, Detail: strconv.Quote(name)}
		}
	}
	return nil
}
