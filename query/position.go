package query

// position is where a consumer continues; its JSON is part of the
// continuation token (see token.go), so its tags must not change.
type position struct {
	NPK  *string `json:"p,omitempty"`
	NRK  *string `json:"r,omitempty"`
	AK   *string `json:"ak,omitempty"`
	AR   *string `json:"ar,omitempty"`
	Done bool    `json:"d,omitempty"`
}

func (p position) after() (keyPair, bool) {
	if p.AK == nil || p.AR == nil {
		return keyPair{}, false
	}
	return keyPair{*p.AK, *p.AR}, true
}

func (p position) valid() bool {
	if p.Done {
		return p.NPK == nil && p.NRK == nil && p.AK == nil && p.AR == nil
	}
	return (p.AK == nil) == (p.AR == nil) && (p.NRK == nil || p.NPK != nil)
}

// tracker is a consumer's position: it advances only when an entity is
// handed to the caller, never when one is merely fetched.
type tracker struct {
	pos    position
	inPage bool // an entity of the current page was returned
}

// keep reports whether the entity at k is new: not at or before the
// position's last returned keys.
func (t *tracker) keep(k keyPair) bool {
	a, ok := t.pos.after()
	return !ok || compareKeys(k, a) > 0
}

// took records that the entity at k was returned, from a page fetched at
// from.
func (t *tracker) took(from position, k keyPair) {
	pk, rk := k.pk, k.rk
	t.pos = position{NPK: from.NPK, NRK: from.NRK, AK: &pk, AR: &rk}
	t.inPage = true
}

// finish records that a page whose continuation is next was consumed to its
// end. Entities beyond the
// page's continuation all sort after everything in the page, so the
// position becomes the bare continuation, unless nothing of the page was
// returned (all skipped, or empty): then the skip keys still apply.
func (t *tracker) finish(next position) {
	if next.Done {
		t.pos = position{Done: true}
		t.inPage = false
		return
	}
	next = position{NPK: next.NPK, NRK: next.NRK}
	if !t.inPage {
		next.AK, next.AR = t.pos.AK, t.pos.AR
	}
	t.pos = next
	t.inPage = false
}
