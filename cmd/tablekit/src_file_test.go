package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// TestRoundsGiveBack: an import's rounds hold their lines' text in slabs
// of their own, which the writer gives back with the round's item list
// once the round is written (slabPool.put), and the reader fills again.
// Every item of a round still reads as its line while the next round is
// read, and slabs and lists given back are filled again.
func TestRoundsGiveBack(t *testing.T) {
	rt := tableForUnits[table.RawEntity](t)
	var lines []string
	for i := range 400 {
		// 3 to 30 KB each: a round of 40 lines fills several slabs, and
		// rounds end inside a slab.
		text := strings.Repeat(string(rune('a'+i%26)), 3000+i*61%27000)
		lines = append(lines, fmt.Sprintf(`{"PartitionKey":"p","RowKey":"%04d","Text":"%s","Timestamp@odata.type":"Edm.DateTime","Timestamp":"2024-01-02T03:04:05.1234567Z"}`, i, text))
	}
	pool := new(slabPool)
	texts := &slab{pool: pool}
	next := jsonlRecords(dynTableForUnits(t), rt, strings.NewReader(strings.Join(lines, "\n")+"\n"), texts)
	out := make(chan round)
	errc := make(chan error, 1)
	go func() { errc <- readRounds(testenv.Ctx(t), next, 0, 40, texts, out) }()

	check := func(r round, when string) {
		t.Helper()
		for _, it := range r.items {
			if got, want := it.input(), lines[it.line-1]; got != want {
				t.Fatalf("%s: line %d reads\n%.80s\nwant\n%.80s", when, it.line, got, want)
			}
		}
	}
	slabs, lists := map[*byte]bool{}, map[*item]bool{}
	var reusedSlabs, reusedLists, items int
	var prev round
	for r := range out {
		check(r, "as read")
		items += len(r.items)
		for _, s := range r.slabs {
			p := &s[:1][0]
			if slabs[p] {
				reusedSlabs++
			}
			slabs[p] = true
		}
		if p := &r.items[:1][0]; lists[p] {
			reusedLists++
		} else {
			lists[p] = true
		}
		if prev.items != nil {
			// The reader is filling the next round by now, from the
			// slabs of the rounds given back before prev.
			check(prev, "a round later")
			pool.put(prev)
		}
		prev = r
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if items != len(lines) {
		t.Errorf("%d items read, want %d", items, len(lines))
	}
	if reusedSlabs == 0 || reusedLists == 0 {
		t.Errorf("%d slabs and %d item lists filled again, want some of each", reusedSlabs, reusedLists)
	}
}
