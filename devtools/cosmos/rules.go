package cosmos

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// azuriteEntityMax is Azurite's limit on the body of an update, upsert or
// merge (ENTITY_SIZE_MAX, 1 MiB, measured in UTF-8 bytes of the body); an
// insert may have up to 4 MiB. Entities between this and Cosmos DB's limit
// are written in steps (large.go).
const azuriteEntityMax = 1 << 20

// refusal is an answer by one of the stand-in's Cosmos DB rules.
type refusal struct {
	status        int
	code, message string
}

// entityRule checks one entity write: its size, its keys (from the path
// when keyed, else from the entity) and its property names. nil when the
// write passes, or when the body is not a JSON object (Azurite answers).
func (s *Server) entityRule(p path, body []byte) *refusal {
	if len(body) > s.profile.MaxEntityBytes {
		return &refusal{http.StatusRequestEntityTooLarge, codeTooLarge, msgTooLarge}
	}
	var props map[string]json.RawMessage
	if json.Unmarshal(body, &props) != nil {
		return nil
	}
	pk, rk := p.pk, p.rk
	if !p.keyed {
		_ = json.Unmarshal(props["PartitionKey"], &pk)
		_ = json.Unmarshal(props["RowKey"], &rk)
	}
	if !s.profile.PartitionKey.Fits(pk) {
		return &refusal{http.StatusBadRequest, codeBadRequest, "The PartitionKey is " + strconv.Itoa(len(pk)) + " bytes; the limit is " + strconv.Itoa(s.profile.PartitionKey.Max) + "."}
	}
	if !s.profile.RowKey.Fits(rk) {
		return &refusal{http.StatusBadRequest, codeBadRequest, "The RowKey is " + strconv.Itoa(len(rk)) + " bytes; the limit is " + strconv.Itoa(s.profile.RowKey.Max) + "."}
	}
	for name := range props {
		name, _, _ = strings.Cut(name, "@")
		if s.profile.Reserved(name) {
			return &refusal{http.StatusBadRequest, codeBadRequest, "The property name " + strconv.Quote(name) + " is reserved by Azure Cosmos DB."}
		}
	}
	return nil
}

// keyRule checks the keys of an operation without an entity (a delete).
func (s *Server) keyRule(p path) *refusal {
	if !p.keyed {
		return nil
	}
	if !s.profile.PartitionKey.Fits(p.pk) || !s.profile.RowKey.Fits(p.rk) {
		return &refusal{http.StatusBadRequest, codeBadRequest, "A key is longer than Azure Cosmos DB allows."}
	}
	return nil
}

// count adds a refusal to the counters.
func (s *Server) count(f *refusal) {
	if f.status == http.StatusRequestEntityTooLarge {
		s.bump(func(st *Stats) *int { return &st.TooLarge })
		return
	}
	s.bump(func(st *Stats) *int { return &st.Refused })
}

// entityWrite serves an insert, update, upsert or merge of one entity.
func (s *Server) entityWrite(w http.ResponseWriter, r *http.Request, p path, body []byte) {
	if f := s.entityRule(p, body); f != nil {
		s.count(f)
		writeError(w, f.status, f.code, f.message)
		return
	}
	if p.keyed && len(body) > azuriteEntityMax {
		s.largeWrite(w, r, p, body)
		return
	}
	s.forward(w, r, body)
}
