package codec

import (
	"strconv"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/wire"
)

// Every limit an encoded entity is checked against is its backend's
// (internal/backend): the caller passes the profile of the table written
// to, or backend.Lenient where no table is known yet.

// over is a Detail for a length n above the limit max, in unit.
func over(n, max int, unit string) string {
	return strconv.Itoa(n) + " " + unit + ", at most " + strconv.Itoa(max)
}

// ValidateKey checks the value of the key named name (PartitionKey or
// RowKey) by wire.CheckKey and the backend's length limit lim, as a
// *tablekit.ValidationError.
func ValidateKey(name, v string, lim backend.Limit) error {
	if v == "" {
		return &tablekit.ValidationError{Index: -1, Field: name, Rule: RuleKeyEmpty, Detail: "aztables v1.4.1 cannot address an entity with an empty key"}
	}
	if bad := wire.CheckKey(v); bad != nil {
		return &tablekit.ValidationError{Index: -1, Field: name, Rule: bad.Rule, Detail: bad.Detail}
	}
	if !lim.Fits(v) {
		return &tablekit.ValidationError{Index: -1, Field: name, Rule: RuleKeyTooLong, Detail: over(lim.Len(v), lim.Max, lim.Unit.String())}
	}
	return nil
}

// CheckKey is ValidateKey for a key given on its own (to Get, Delete, a
// point query or a batch delete) rather than in an entity. prof is the
// backend's.
func CheckKey(prof *backend.Profile, name, v string) error {
	lim := prof.RowKey
	if name == "PartitionKey" {
		lim = prof.PartitionKey
	}
	return ValidateKey(name, v, lim)
}

// checkName applies the property name rules: wire.CheckPropertyName's,
// the backend's length limit and its reserved names.
func checkName(prof *backend.Profile, name string) error {
	if bad := wire.CheckPropertyName(name); bad != nil {
		return &tablekit.ValidationError{Index: -1, Field: name, Rule: RulePropertyName, Detail: bad.String()}
	}
	return checkNameLimits(prof, name)
}

// checkNameLimits is the backend's part of checkName, for a name that
// passed wire.CheckPropertyName.
func checkNameLimits(prof *backend.Profile, name string) error {
	// The limit is in characters (UTF-16 code units, as the service
	// counts): a name of 200 accented letters is 400 bytes and valid.
	if len(name) > prof.MaxPropertyName {
		if n := wire.UTF16Len(name); n > prof.MaxPropertyName {
			return &tablekit.ValidationError{Index: -1, Field: name, Rule: RulePropertyName, Detail: over(n, prof.MaxPropertyName, "characters")}
		}
	}
	if prof.HasReserved() && prof.Reserved(name) {
		return reservedName(prof, name)
	}
	return nil
}

func reservedName(prof *backend.Profile, name string) error {
	return &tablekit.ValidationError{Index: -1, Field: name, Rule: RulePropertyName, Detail: "reserved by " + prof.Kind.String()}
}

// checkTotals applies the entity-wide limits: the property count, and the
// size, which the backend measures by its rule: formula is the entity's
// size by Table Storage's formula, json the length of its JSON.
func checkTotals(prof *backend.Profile, count, formula, json int) error {
	if count > prof.MaxProperties {
		return &tablekit.ValidationError{Index: -1, Field: "(entity)", Rule: RuleTooManyProperties, Detail: over(count, prof.MaxProperties, "properties")}
	}
	if prof.EntitySize == backend.JSONBytes {
		if json > prof.MaxEntityBytes {
			return &tablekit.ValidationError{Index: -1, Field: "(entity)", Rule: RuleEntityTooLarge, Detail: over(json, prof.MaxEntityBytes, "bytes of JSON")}
		}
		return nil
	}
	if formula > prof.MaxEntityBytes {
		return &tablekit.ValidationError{Index: -1, Field: "(entity)", Rule: RuleEntityTooLarge, Detail: over(formula, prof.MaxEntityBytes, "bytes by the service's formula")}
	}
	return nil
}
