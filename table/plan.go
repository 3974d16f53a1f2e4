package table

import (
	"reflect"

	"github.com/tablekit/tablekit/internal/codec"
)

// planOf is the codec's plan of T, checked once. The codec cannot import
// this package: it learns which types are Entity, RawEntity and GUID here,
// from the types themselves.
func planOf[T any]() (*codec.Plan, error) {
	return codec.For(reflect.TypeFor[T](), codec.Types{
		Entity:    reflect.TypeFor[Entity](),
		RawEntity: reflect.TypeFor[RawEntity](),
		GUID:      reflect.TypeFor[GUID](),
		MakeGUID:  guidMaker{},
	})
}

// guidMaker makes a GUID of a table.Entity's Edm.Guid property.
type guidMaker struct{}

func (guidMaker) MakeGUID(b [16]byte) any { return GUID(b) }
