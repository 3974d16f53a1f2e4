package query

// pop removes segment i's consumed first page.
func (r *run[T]) pop(i int) {
	s := &r.segs[i]
	r.c.tr[i].finish(s.queue[0].next)
	s.queue[0] = nil
	s.queue = s.queue[1:]
	s.idx = 0
	if !r.c.ordered {
		r.arrivals = r.arrivals[1:]
	}
}

// head returns segment i's next entity to hand out, skipping entities at or
// before its position and finishing consumed pages. Unordered it looks at
// the first queued page only (pages are consumed in arrival order); ordered
// at every queued page. ok is false when there is none. Needs c.mu.
func (r *run[T]) head(i int) (e T, k keyPair, ok bool) {
	s := &r.segs[i]
	tr := &r.c.tr[i]
	for len(s.queue) > 0 {
		p := s.queue[0]
		for s.idx < len(p.items) {
			if tr.keep(p.keys[s.idx]) {
				return p.items[s.idx], p.keys[s.idx], true
			}
			s.idx++
			r.buffered--
		}
		r.pop(i)
		if !r.c.ordered {
			break
		}
	}
	return e, k, false
}

// take records that segment i's head was handed out. Needs c.mu.
func (r *run[T]) take(i int) {
	s := &r.segs[i]
	p := s.queue[0]
	r.c.tr[i].took(p.from, p.keys[s.idx])
	s.idx++
	r.buffered--
	if s.idx == len(p.items) {
		r.pop(i)
	}
}

// next picks the entity to hand out, if one can be picked now, and moves
// its segment's position. wait is true when the run must first receive a
// page.
func (r *run[T]) next() (e T, ok, wait bool) {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	pick := -1
	if c.ordered {
		var best keyPair
		for i := range r.segs {
			he, hk, has := r.head(i)
			if !has {
				if !r.segs[i].fetchPos.Done {
					return e, false, true // this segment's next entity must be seen first
				}
				continue // finished
			}
			if pick < 0 || compareKeys(hk, best) < 0 {
				pick, best, e = i, hk, he
			}
		}
	} else {
		for pick < 0 && len(r.arrivals) > 0 {
			i := r.arrivals[0]
			if he, _, has := r.head(i); has {
				pick, e = i, he
			}
		}
	}
	if pick < 0 {
		return e, false, r.inflight > 0
	}
	r.take(pick)
	return e, true, false
}
