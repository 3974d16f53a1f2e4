package codec

import (
	"reflect"

	"github.com/tablekit/tablekit/internal/backend"
)

// Convert re-encodes src as a D through the service's JSON, as a write of
// src followed by a read into D would: the write rules of every backend
// apply to src (backend.Lenient: no table, so no backend, is known yet; a
// write checks its backend's own), every read rule to D, and properties D
// does not map are dropped. ETag and Timestamp are carried over when both
// types have them.
func Convert[D, S any](src S) (D, error) {
	var dst D
	sp, err := PlanFor[S]()
	if err != nil {
		return dst, err
	}
	dp, err := PlanFor[D]()
	if err != nil {
		return dst, err
	}
	sv, dv := reflect.ValueOf(&src).Elem(), reflect.ValueOf(&dst).Elem()
	lenient := backend.Lenient()
	body, err := sp.Encode(make([]byte, 0, 512), sv, &lenient)
	if err != nil {
		return dst, err
	}
	if err := dp.Decode(body, dv); err != nil {
		return dst, err
	}
	if sp.etag != nil && dp.etag != nil {
		dv.FieldByIndex(dp.etag.index).SetString(sv.FieldByIndex(sp.etag.index).String())
	}
	if sp.ts != nil && dp.ts != nil {
		dv.FieldByIndex(dp.ts.index).Set(sv.FieldByIndex(sp.ts.index))
	}
	return dst, nil
}
