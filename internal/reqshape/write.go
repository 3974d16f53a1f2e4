package reqshape

import "net/http"

// EntityWrite reports an Update, Merge or upsert of one entity: PUT or
// PATCH to an entity's path, or POST there (Cosmos DB's form of a merge,
// with X-HTTP-Method: MERGE).
func EntityWrite(req *http.Request) bool {
	if req == nil || !entityPath(req.URL) {
		return false
	}
	switch req.Method {
	case http.MethodPut, http.MethodPatch, http.MethodPost:
		return true
	}
	return false
}
