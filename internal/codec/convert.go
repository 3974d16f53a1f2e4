package codec

import "reflect"

// Convert re-encodes src as a D through the service's JSON, exactly as a
// write of src followed by a read into D would: every write rule applies to
// src, every read rule to D, and properties D does not map are dropped.
// ETag and Timestamp are carried over when both types have them.
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
	body, err := sp.Encode(make([]byte, 0, 512), sv)
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
