package txwire

import (
	"crypto/rand"
	"encoding/hex"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// The part's MIME headers, as aztables' multipart writer sorts them.
const partHeaders = "Content-Transfer-Encoding: binary\r\nContent-Type: application/http\r\n\r\n"

// DelimiterLen is the length of the line before every part ("\r\n--C\r\n");
// a part written by AppendPart adds DelimiterLen+len(part) to the body,
// which is OpSize of its operation.
func DelimiterLen() int { return delimiterLen }

// AppendPart appends op's part after its delimiter line, byte for byte as
// aztables v1.4.1 writes it except that entity goes out as it is (aztables
// re-encodes it): MIME headers, request line, the request's headers in
// sorted order, an empty line, the entity (none for Delete).
func (s *Sizer) AppendPart(dst []byte, op Op, entity []byte) ([]byte, error) {
	if op.Type == aztables.TransactionTypeDelete {
		entity = nil
	}
	start := len(dst)
	dst = slices.Grow(dst, len(partHeaders)+partHeadroom+len(entity))
	dst = append(dst, partHeaders...)
	dst, err := s.appendRequestLine(dst, op)
	if err != nil {
		return dst[:start], err
	}
	var hb [maxHeaders]header
	for _, h := range s.opHeaders(hb[:0], op, len(entity)) {
		dst = append(dst, h.key...)
		dst = append(dst, ": "...)
		dst = h.appendValue(dst)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	return append(dst, entity...), nil
}

// partHeadroom is room for a part's request line and headers, beyond the
// entity, enough for most without growing the part again.
const partHeadroom = 512

// PartRoom is the room AppendPart makes in dst for a part whose entity has
// entityLen bytes: a dst with that much spare capacity is written in place.
func PartRoom(entityLen int) int { return len(partHeaders) + partHeadroom + entityLen }

// AppendBody appends a transaction's body, assembled from its parts
// (AppendPart) with new random boundaries, to dst and returns it with its
// Content-Type. The body adds Envelope() plus DelimiterLen()+len(part) for
// every part; a dst with that room (a reused buffer) costs no allocation.
func AppendBody(dst []byte, parts [][]byte) (body []byte, contentType string) {
	var batch, changeset [uuidLen]byte
	newUUID(&batch)
	newUUID(&changeset)
	n := envelope
	for _, p := range parts {
		n += DelimiterLen() + len(p)
	}
	b := slices.Grow(dst, n)
	b = append(b, "--batch_"...)
	b = append(b, batch[:]...)
	b = append(b, "\r\nContent-Type: multipart/mixed; boundary=changeset_"...)
	b = append(b, changeset[:]...)
	b = append(b, "\r\n\r\n"...)
	for i, p := range parts {
		if i > 0 {
			b = append(b, "\r\n"...)
		}
		b = append(b, "--changeset_"...)
		b = append(b, changeset[:]...)
		b = append(b, "\r\n"...)
		b = append(b, p...)
	}
	b = append(b, "\r\n--changeset_"...)
	b = append(b, changeset[:]...)
	b = append(b, "--\r\n\r\n--batch_"...)
	b = append(b, batch[:]...)
	b = append(b, "--\r\n"...)
	return b, "multipart/mixed; boundary=batch_" + string(batch[:])
}

// newUUID writes a random version 4 UUID in its 36-character text form.
func newUUID(b *[uuidLen]byte) {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	hex.Encode(b[0:8], u[0:4])
	hex.Encode(b[9:13], u[4:6])
	hex.Encode(b[14:18], u[6:8])
	hex.Encode(b[19:23], u[8:10])
	hex.Encode(b[24:], u[10:])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
}
