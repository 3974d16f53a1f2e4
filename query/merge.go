package query

import "slices"

// popPage removes segment i's consumed first page.
func (r *parallelRun[T]) popPage(i int) {
	seg := &r.segments[i]
	r.cursor.trackers[i].finishPage(seg.pages[0].next)
	seg.pages[0] = nil
	seg.pages = seg.pages[1:]
	seg.nextEntity = 0
	if !r.cursor.ordered {
		// The entry of this page: a segment's pages are consumed in
		// order, so its first entry.
		if j := slices.Index(r.arrivalOrder, i); j >= 0 {
			r.arrivalOrder = slices.Delete(r.arrivalOrder, j, j+1)
		}
		r.consuming = 0
	}
}

// peek returns segment i's next entity to hand out, skipping entities at or
// before its position and finishing consumed pages. Unordered it looks at
// the first queued page only (a page is consumed whole before the next is
// picked); ordered at every queued page. ok is false when there is none.
// Needs c.mu.
func (r *parallelRun[T]) peek(i int) (entity T, keys keyPair, ok bool) {
	seg := &r.segments[i]
	tracker := &r.cursor.trackers[i]
	for len(seg.pages) > 0 {
		page := seg.pages[0]
		for seg.nextEntity < len(page.entities) {
			if tracker.keeps(page.keyed(), seg.nextEntity) {
				return page.entities[seg.nextEntity], page.keys[seg.nextEntity], true
			}
			seg.nextEntity++
			r.bufferedEntities--
		}
		r.popPage(i)
		if !r.cursor.ordered {
			break
		}
	}
	return entity, keys, false
}

// handOut records that segment i's peeked entity was handed out. Needs c.mu.
func (r *parallelRun[T]) handOut(i int) {
	seg := &r.segments[i]
	page := seg.pages[0]
	r.cursor.trackers[i].advanceTo(page.fetchedAt, page.keyed(), seg.nextEntity)
	seg.nextEntity++
	r.bufferedEntities--
	if seg.nextEntity == len(page.entities) {
		r.popPage(i)
	}
}

// next picks the entity to hand out, if one can be picked now, and moves
// its segment's position. wait is true when the run must first receive a
// page.
func (r *parallelRun[T]) next() (entity T, ok, wait bool) {
	c := r.cursor
	c.mu.Lock()
	defer c.mu.Unlock()
	chosen := -1 // the segment whose entity is handed out
	if c.ordered {
		var chosenKeys keyPair
		for i := range r.segments {
			e, keys, found := r.peek(i)
			if !found {
				if !r.segments[i].fetchAt.Done {
					return entity, false, true // this segment's next entity must be seen first
				}
				continue // finished
			}
			if chosen < 0 || compareKeys(keys, chosenKeys) < 0 {
				chosen, chosenKeys, entity = i, keys, e
			}
		}
	} else {
		for chosen < 0 && len(r.arrivalOrder) > 0 {
			i := r.consuming - 1
			if i < 0 {
				// The page that arrived last, its segment's first: it
				// was decoded last, so its entities are the likeliest to
				// be in the processor's cache still. A caller slower
				// than the pages arrive (one that writes each entity
				// out) would otherwise read each from memory, decoded
				// a whole read-ahead before.
				i = r.arrivalOrder[len(r.arrivalOrder)-1]
				r.consuming = i + 1
			}
			if e, _, found := r.peek(i); found {
				chosen, entity = i, e
			}
		}
	}
	if chosen < 0 {
		return entity, false, r.inFlight > 0
	}
	r.handOut(chosen)
	return entity, true, false
}
