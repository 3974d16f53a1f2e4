package codec

import (
	"bytes"
	"errors"
	"reflect"
)

// decodeRawFast is decodeRaw in one pass for an entity as the service
// writes it: each annotation just before its property, names without
// escapes, every value valid. It checks and places each property as it
// reads it, with no list of members to pair and write out after, and
// copies the properties (one span, where nothing is added between them)
// into an allocation of their exact size. ok is false for anything else,
// a malformed or misfit entity included, and decodeRaw then reads the
// entity again its general way, which gives the same result for every
// entity read here (FuzzRawFastMatches) and says what is wrong with the
// others.
func (p *Plan) decodeRawFast(data []byte, v reflect.Value, whole bool) (n int, ok bool) {
	st := rawPool.Get().(*rawState)
	s := &st.s
	s.Reset(data)
	keys, out := &st.keys, &st.out
	keys.reset()
	out.reset(data)
	defer func() { s.Reset(nil); out.reset(nil); rawPool.Put(st) }()
	r := rawReader{data: data}
	var anno rawMember // the annotation read just before, its text n 0 when none
	err := p.rawMembers(s, data, keys, v, func(name []byte, start int) error {
		if !inData(data, name) {
			return errGeneral // an escaped name, in the scanner's scratch space
		}
		m := rawMember{name: name, kind: valueKind(s.Peek()), anno: -1}
		valStart := s.Pos
		if err := s.Skip(); err != nil {
			return err
		}
		start = memberStart(data, start, valStart)
		m.text, m.val = span{start, s.Pos - start}, span{valStart, s.Pos - valStart}
		if base, isAnno := bytes.CutSuffix(name, []byte(annoSuffix)); isAnno {
			if anno.text.n > 0 || m.kind != 's' {
				return errGeneral
			}
			m.annoOf = base
			anno = m
			return nil
		}
		if m.kind == 'x' {
			return errGeneral
		}
		if anno.text.n > 0 {
			if !bytes.Equal(anno.annoOf, name) || r.check(r.edm(anno.val), &m) != "" {
				return errGeneral
			}
			out.copy(anno.text)
			out.copy(m.text)
			anno = rawMember{}
			return nil
		}
		edm, pr := r.unannotated(&m)
		switch {
		case pr != "":
			return errGeneral
		case edm == "":
			out.copy(m.text)
			return nil
		}
		from := len(out.added)
		g, complete := r.appendTyped(out.added, &m, edm)
		if !complete {
			g = append(g, ',') // the value follows, as it is
		}
		out.added = g
		out.addedFrom(from)
		if !complete {
			out.copyJoined(m.text)
		}
		return nil
	})
	if err != nil || anno.text.n > 0 || whole && s.End() != nil {
		return 0, false
	}
	keys.set(p, v)
	v.FieldByIndex(p.dyn.props).SetBytes(out.object())
	return s.Pos, true
}

// errGeneral stops decodeRawFast at an entity it leaves to decodeRaw's
// general reading.
var errGeneral = errors.New("not in the service's form")

// inData reports whether b lies within data (not in a copy of its own).
func inData(data, b []byte) bool {
	off := cap(data) - cap(b)
	return len(b) > 0 && off >= 0 && off+len(b) <= len(data) && &data[off] == &b[0]
}

// rawPieces is decodeRawFast's output while it reads: the members, comma
// separated, as spans of the input (a span that starts one comma after the
// last joined into it) and of the bytes decodeRawFast adds (the
// annotations of numbers) in added; object joins them into one
// allocation.
type rawPieces struct {
	data   []byte
	pieces []rawPiece
	added  []byte
	size   int // of the pieces, their commas included
}

// rawPiece is a span of the input (added false) or of the added bytes,
// after a comma when comma is set.
type rawPiece struct {
	from, to     int
	added, comma bool
}

func (o *rawPieces) reset(data []byte) {
	o.data, o.pieces, o.added, o.size = data, o.pieces[:0], o.added[:0], 0
}

func (o *rawPieces) push(pc rawPiece) {
	pc.comma = pc.comma && len(o.pieces) > 0
	o.pieces = append(o.pieces, pc)
	o.size += pc.to - pc.from
	if pc.comma {
		o.size++
	}
}

// copy adds the input's text at sp as the next member.
func (o *rawPieces) copy(sp span) {
	if n := len(o.pieces); n > 0 {
		if last := &o.pieces[n-1]; !last.added && sp.off == last.to+1 && o.data[last.to] == ',' {
			o.size += sp.off + sp.n - last.to
			last.to = sp.off + sp.n
			return
		}
	}
	o.push(rawPiece{from: sp.off, to: sp.off + sp.n, comma: true})
}

// copyJoined adds the input's text at sp right after the last piece, with
// no comma: a value after the annotation added for it, which ends in one.
func (o *rawPieces) copyJoined(sp span) {
	o.push(rawPiece{from: sp.off, to: sp.off + sp.n})
}

// addedFrom records the added bytes from from on as the next member.
func (o *rawPieces) addedFrom(from int) {
	o.push(rawPiece{from: from, to: len(o.added), added: true, comma: true})
}

// object returns the members as one JSON object, in a slice of its own:
// of exactly its length, or a buffer given back (ReleaseRawProps).
func (o *rawPieces) object() []byte {
	b := newRawProps(o.size + 2)
	b = append(b, '{')
	for _, pc := range o.pieces {
		if pc.comma {
			b = append(b, ',')
		}
		if pc.added {
			b = append(b, o.added[pc.from:pc.to]...)
		} else {
			b = append(b, o.data[pc.from:pc.to]...)
		}
	}
	return append(b, '}')
}
