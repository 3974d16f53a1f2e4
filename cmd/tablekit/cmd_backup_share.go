package main

import (
	"flag"

	"github.com/tablekit/tablekit/backup"
)

// shareFlags are backup's --plan, --segment and --id: one share of a
// backup spread over n machines.
type shareFlags struct{ plan, segment, id string }

func (s *shareFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.plan, "plan", "", "the shares of --segment, from tablekit plan TABLE --shares N: every machine gets the same file")
	fs.StringVar(&s.segment, "segment", "", "i/n: back up share i of n of --plan's; the backup is listed once all n have landed; env:VAR/n takes i-1 from $VAR")
	fs.StringVar(&s.id, "id", "", "with --segment: the backup's ID, the same on every share (form 20261126T031500.000Z); default the plan's creation time")
}

// share is the backup.Share the flags name, nil without --segment.
func (s *shareFlags) share(table string, getenv func(string) string) (*backup.Share, error) {
	if s.segment == "" {
		if s.plan != "" || s.id != "" {
			return nil, usagef("--plan and --id need --segment i/n: the share of the plan to back up")
		}
		return nil, nil
	}
	sh, err := parseShare(s.segment, getenv)
	if err != nil {
		return nil, &usageError{err.Error()}
	}
	if s.plan == "" {
		return nil, usagef("--segment %s needs --plan FILE: make it once with tablekit plan %s --shares %d -o FILE and give it to every machine", s.segment, table, sh.N)
	}
	pl, err := readPlan(s.plan)
	if err == nil {
		err = pl.check(s.plan, table, "", "", sh)
	}
	if err != nil {
		return nil, &usageError{err.Error()}
	}
	r := pl.of(sh)
	out := &backup.Share{ID: s.id, Index: sh.I, Count: sh.N, From: r.Lo}
	if r.HasHi {
		out.To = r.Hi
	}
	if out.ID == "" {
		out.ID = pl.Created.UTC().Format(backup.IDLayout)
	}
	return out, nil
}
