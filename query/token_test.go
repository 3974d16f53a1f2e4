package query

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/table"
)

// Compatibility fixtures: tokens made by an earlier version of this package
// and hard-coded, so that a change to the token's JSON (a renamed field tag,
// a changed binding) fails here instead of breaking tokens that callers
// have saved. Do not regenerate them: a failure means existing tokens no
// longer resume.
//
// Both are for table fixtureTable holding fixtureItems. fixtureSequential is
// New(tbl).Where(PartitionKey.Lt(String("p03"))).PageSize(4) stopped after 6
// entities: {"p":"cDAw","r":"cjAwMDQ=","ak":"p01","ar":"r0000"}.
// fixtureParallel is New(tbl).PageSize(2).Parallel(PartitionSegments("p00",
// "p01", "p02"), Ordered) stopped after 3 entities: the first segment
// mid-page at p00/r0002, the others not started.
const (
	fixtureTable      = "querytokenfixture"
	fixtureSequential = "eyJ2IjoxLCJxIjoiMlQzN2pUSTE3S0tRbGV1dSIsInAiOiJjREF3IiwiciI6ImNqQXdNRFE9IiwiYWsiOiJwMDEiLCJhciI6InIwMDAwIn0"
	fixtureParallel   = "eyJ2IjoxLCJxIjoiVmNzN0t3QXA2bnI3ckRnRSIsInMiOlt7InAiOiJjREF3IiwiciI6ImNqQXdNREk9IiwiYWsiOiJwMDAiLCJhciI6InIwMDAyIn0se30se31dfQ"
)

// fixtureItems are 3 partitions of 5 entities, in key order.
func fixtureItems() []item {
	var out []item
	for p := range 3 {
		for r := range 5 {
			out = append(out, makeItem(p, r))
		}
	}
	return out
}

func fixtureSequentialQuery(tbl *table.Table[item]) Query[item] {
	return New(tbl).Where(PartitionKey.Lt(String("p03"))).PageSize(4)
}

func fixtureParallelRun(tbl *table.Table[item], resume string) (*ParallelCursor[item], error) {
	return New(tbl).PageSize(2).ResumeParallel(resume, PartitionSegments("p00", "p01", "p02"), &ParallelOptions{Ordered: true})
}

// TestTokenFixtureDecodes checks, without I/O, that the fixtures still
// decode to the positions they were made at.
func TestTokenFixtureDecodes(t *testing.T) {
	svc, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[item](svc, fixtureTable)
	if err != nil {
		t.Fatal(err)
	}
	c, err := fixtureSequentialQuery(tbl).Resume(fixtureSequential)
	if err != nil {
		t.Fatalf("sequential fixture: %v", err)
	}
	if last, ok := c.position().lastReturned(); !ok || last != (keyPair{"p01", "r0000"}) {
		t.Errorf("sequential fixture: last returned %v, %v; want p01/r0000", last, ok)
	}
	if c.Token() != fixtureSequential {
		t.Errorf("sequential fixture re-encodes as %s", c.Token())
	}
	pc, err := fixtureParallelRun(tbl, fixtureParallel)
	if err != nil {
		t.Fatalf("parallel fixture: %v", err)
	}
	if pc.Token() != fixtureParallel {
		t.Errorf("parallel fixture re-encodes as %s", pc.Token())
	}
}

// TestTokenFixtureResumes resumes the fixtures against the data they were
// made on: each returns exactly the entities after its position.
func TestTokenFixtureResumes(t *testing.T) {
	svc := newService(t, "", nil)
	tbl, err := table.New[item](svc, fixtureTable) // the binding covers the name
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := svc.CreateTable(ctx, tbl.Name()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.DeleteTable(context.Background(), tbl.Name()) })
	all := fixtureItems()
	load(t, tbl, all)

	c, err := fixtureSequentialQuery(tbl).Resume(fixtureSequential)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := Collect(c.All(ctx))
	if err != nil {
		t.Fatal(err)
	}
	sameSequence(t, keysOf(rest), keysOf(all[6:]))

	pc, err := fixtureParallelRun(tbl, fixtureParallel)
	if err != nil {
		t.Fatal(err)
	}
	rest, err = Collect(pc.All(ctx))
	if err != nil {
		t.Fatal(err)
	}
	sameSequence(t, keysOf(rest), keysOf(all[3:]))
}

// TestTokenVersions: a token with a count skip is version 2, so that a
// reader of version 1 refuses it rather than ignore the skip; version 1
// tokens keep their form (the fixtures above) and may not carry one.
func TestTokenVersions(t *testing.T) {
	svc, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := table.New[item](svc, fixtureTable)
	if err != nil {
		t.Fatal(err)
	}
	q := fixtureSequentialQuery(tbl)
	c, err := q.Resume("")
	if err != nil {
		t.Fatal(err)
	}
	raw := func(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }
	bind := `"q":"` + c.binding + `"`
	tests := []struct {
		name, json string
		ok         bool
	}{
		{"count skip, version 2", `{"v":2,` + bind + `,"p":"cDAw","n":3,"h":"abc"}`, true},
		{"count skip from the start, version 2", `{"v":2,` + bind + `,"n":1,"h":"abc"}`, true},
		{"count skip in version 1", `{"v":1,` + bind + `,"p":"cDAw","n":3,"h":"abc"}`, false},
		{"digest without a count", `{"v":2,` + bind + `,"p":"cDAw","h":"abc"}`, false},
		{"count without a digest", `{"v":2,` + bind + `,"p":"cDAw","n":3}`, false},
		{"negative count", `{"v":2,` + bind + `,"p":"cDAw","n":-1,"h":"abc"}`, false},
		{"count and key skip", `{"v":2,` + bind + `,"p":"cDAw","n":3,"h":"abc","ak":"p","ar":"r"}`, false},
		{"count skip when done", `{"v":2,` + bind + `,"d":true,"n":3,"h":"abc"}`, false},
		{"version 3", `{"v":3,` + bind + `,"p":"cDAw"}`, false},
	}
	for _, tt := range tests {
		tok := raw(tt.json)
		c, err := q.Resume(tok)
		if !tt.ok {
			if !errors.Is(err, tablekit.ErrInvalid) {
				t.Errorf("%s: got %v, want tablekit.ErrInvalid", tt.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := c.Token(); got != tok {
			b, _ := base64.RawURLEncoding.DecodeString(got)
			t.Errorf("%s: re-encodes as %s", tt.name, b)
		}
	}
}
