package codec

import (
	"reflect"
)

// The functions below are the codec for a type parameter T, so that the
// generic packages (table, query, batch) share one cached plan per type
// without passing it around or exporting it to users.

// PlanFor returns the plan of T, computing it once (see For).
func PlanFor[T any]() (*Plan, error) { return For(reflect.TypeFor[T]()) }

// Unmarshal decodes one entity as the service returns it.
func Unmarshal[T any](data []byte) (T, error) {
	var e T
	p, err := PlanFor[T]()
	if err != nil {
		return e, err
	}
	err = p.Decode(data, reflect.ValueOf(&e).Elem())
	return e, err
}

// UnmarshalAt decodes the entity at the start of data (a query page from
// that entity on) and returns the length it took (see Plan.DecodeAt).
func UnmarshalAt[T any](data []byte) (T, int, error) {
	var e T
	p, err := PlanFor[T]()
	if err != nil {
		return e, 0, err
	}
	n, err := p.DecodeAt(data, reflect.ValueOf(&e).Elem())
	return e, n, err
}

// Keys returns e's PartitionKey and RowKey; both are empty when T is not an
// entity type (table.New refuses such a T, so callers holding a table never
// see that).
func Keys[T any](e *T) (partitionKey, rowKey string) {
	p, err := PlanFor[T]()
	if err != nil {
		return "", ""
	}
	return p.Keys(reflect.ValueOf(e).Elem())
}

// HasProperty reports whether T maps the property (keys and Timestamp
// count), for checking filters and $select lists against T.
func HasProperty[T any](name string) bool {
	p, err := PlanFor[T]()
	return err == nil && p.HasProperty(name)
}

// SelectList returns the $select value for names (wire.SelectList),
// refusing names that are not properties of T with tablekit.ErrInvalid.
func SelectList[T any](names []string) (string, error) {
	p, err := PlanFor[T]()
	if err != nil {
		return "", err
	}
	return p.SelectList(names)
}
