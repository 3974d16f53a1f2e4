// Inter-partition secondary index with eventually consistent transactions.
//
// Problem: an index kept in the same partition as the data (see
// intra-partition-index) shares that partition's throughput. To spread the
// load, the index lives in another partition ("email_Sales" next to
// "empid_Sales"), but an entity group transaction cannot span partitions:
// updating the employee and then the index in two writes leaves a wrong
// index for good if the process dies between them.
//
// Pattern (transactional outbox): every change to an employee is written in
// one transaction with an outbox entry in the same partition that says what
// the index must become. A worker, at any time and any number of times,
// reads the pending entries in order, applies each to the index partition
// with idempotent steps (upsert the new entry, delete the old one if it still
// points to this employee; "not found" counts as done), and only then deletes
// the outbox entry. A crash anywhere just leaves the entry to be applied
// again. The design guide uses a queue for the same role; the outbox needs no
// other service and cannot be lost, since it commits with the change.
//
// There is no isolation: between the steps a reader may see the old index,
// or both the old and the new entry. Readers of an eventually consistent
// index must tolerate that (or check the employee it points to).
//
// Guarantee checked: after a crash between the worker's steps, a second run
// of the worker converges: the index matches the employees exactly and no
// outbox entry is left.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

const (
	sourcePK = "empid_Sales" // employees (RowKey: id) and their outbox
	indexPK  = "email_Sales" // index entries (RowKey: email)
	outbox   = "outbox_"     // RowKey prefix of outbox entries
)

// Employee is the source entity, RowKey = id. Its outbox entries use the same
// Go type (a batch.Transaction holds one), RowKey = "outbox_<id>_<version>",
// with PrevEmail set: the index entry that the change makes obsolete.
type Employee struct {
	PartitionKey string
	RowKey       string
	EmployeeID   string
	Name         string `table:",omitempty"`
	Email        string
	Version      int64
	PrevEmail    string `table:",omitempty"`
	table.Meta
}

// IndexEntry maps an email to an employee, in the index partition.
type IndexEntry struct {
	PartitionKey string // indexPK
	RowKey       string // email
	EmployeeID   string
	table.Meta
}

type store struct {
	emps  *table.Table[Employee]
	index *table.Table[IndexEntry]
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("inter-partition-index: ")
	if err := run(); err != nil {
		log.Fatalf("FAIL: %v", err)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	svc, err := table.NewService(connectionString(), nil)
	if err != nil {
		return err
	}
	name := uniqueName("employees")
	var s store
	if s.emps, err = table.New[Employee](svc, name); err != nil {
		return err
	}
	if s.index, err = table.New[IndexEntry](svc, name); err != nil {
		return err
	}
	if err := svc.CreateTable(ctx, name); err != nil {
		return err
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), name)
	fmt.Println("table", name)

	for _, e := range [][3]string{
		{"000223", "Jones", "jonesj@contoso.com"},
		{"000224", "Smith", "smithk@contoso.com"},
	} {
		if err := s.hire(ctx, e[0], e[1], e[2]); err != nil {
			return err
		}
	}
	if _, err := s.work(ctx, false); err != nil {
		return err
	}
	if err := s.check(ctx, "after hiring 2 and one worker run"); err != nil {
		return err
	}

	// A change commits with its outbox entry; the index lags behind.
	if err := s.changeEmail(ctx, "000223", "jones.j@contoso.com"); err != nil {
		return err
	}
	fmt.Println("changed Jones's email: employee and outbox entry in one transaction")
	s.show(ctx, "  before the worker runs")

	// The worker dies between its steps: new entry written, old one and the
	// outbox entry not yet deleted.
	_, err = s.work(ctx, true)
	fmt.Printf("worker run: %v\n", err)
	if !errors.Is(err, errCrash) {
		return fmt.Errorf("the simulated crash did not happen: %v", err)
	}
	s.show(ctx, "  after the crash")

	// Running the worker again finishes the job; running it once more
	// changes nothing.
	for range 2 {
		n, err := s.work(ctx, false)
		if err != nil {
			return err
		}
		fmt.Printf("worker run: applied %d outbox entries\n", n)
	}
	if err := s.check(ctx, "after the worker re-ran"); err != nil {
		return err
	}
	fmt.Println("OK: the index converged after a crash between the steps")
	return nil
}

// hire writes a new employee and its outbox entry atomically.
func (s store) hire(ctx context.Context, id, name, email string) error {
	e := Employee{PartitionKey: sourcePK, RowKey: id, EmployeeID: id, Name: name, Email: email, Version: 1}
	_, err := batch.New(s.emps).Add(e).Add(outboxEntry(e, "")).Submit(ctx)
	return err
}

// changeEmail updates the employee (if unchanged since read: ETag) and adds
// the outbox entry for the index, atomically.
func (s store) changeEmail(ctx context.Context, id, email string) error {
	e, err := s.emps.Get(ctx, sourcePK, id, nil)
	if err != nil {
		return err
	}
	prev := e.Email
	e.Email, e.Version = email, e.Version+1
	_, err = batch.New(s.emps).Update(e, table.Replace, e.ETag).Add(outboxEntry(e, prev)).Submit(ctx)
	return err
}

func outboxEntry(e Employee, prevEmail string) Employee {
	return Employee{PartitionKey: sourcePK, RowKey: outbox + e.EmployeeID + "_" + table.PadUint(uint64(e.Version), 10),
		EmployeeID: e.EmployeeID, Email: e.Email, Version: e.Version, PrevEmail: prevEmail}
}

var errCrash = errors.New("simulated crash between the worker's steps")

// work applies every pending outbox entry, oldest first per employee (the
// RowKey order), and returns how many it applied. Every step is idempotent,
// so it is safe to run again after any failure, or from two workers.
// (A production worker would also count attempts per entry and set aside
// entries that keep failing, like a queue's poison messages.)
func (s store) work(ctx context.Context, crash bool) (int, error) {
	pending, err := query.Collect(query.New(s.emps).
		Where(query.And(query.Partition(sourcePK), query.RowKey.HasPrefix(outbox))).All(ctx))
	if err != nil {
		return 0, err
	}
	for i, o := range pending {
		// Step 1: the new index entry (upsert: applying twice is harmless).
		ie := IndexEntry{PartitionKey: indexPK, RowKey: o.Email, EmployeeID: o.EmployeeID}
		if _, err := s.index.Upsert(ctx, ie, table.Replace); err != nil {
			return i, err
		}
		if crash {
			return i, errCrash
		}
		// Step 2: the obsolete entry, only if it still names this employee
		// (the address may belong to someone else by now).
		if o.PrevEmail != "" && o.PrevEmail != o.Email {
			old, err := s.index.Get(ctx, indexPK, o.PrevEmail, nil)
			switch {
			case errors.Is(err, tablekit.ErrNotFound): // already done
			case err != nil:
				return i, err
			case old.EmployeeID == o.EmployeeID:
				err := s.index.Delete(ctx, indexPK, o.PrevEmail, old.ETag)
				if err != nil && !errors.Is(err, tablekit.ErrNotFound) && !errors.Is(err, tablekit.ErrPreconditionFailed) {
					return i, err // 404: done already; 412: taken over since
				}
			}
		}
		// Step 3: the entry is applied; remove it.
		if err := s.emps.Delete(ctx, sourcePK, o.RowKey, o.ETag); err != nil && !errors.Is(err, tablekit.ErrNotFound) {
			return i, err
		}
	}
	return len(pending), nil
}

// state reads the index as email -> id, and the pending outbox entries.
func (s store) state(ctx context.Context) (index map[string]string, pending []string, employees []Employee, err error) {
	entries, err := query.Collect(query.New(s.index).Where(query.Partition(indexPK)).All(ctx))
	if err != nil {
		return nil, nil, nil, err
	}
	index = map[string]string{}
	for _, e := range entries {
		index[e.RowKey] = e.EmployeeID
	}
	rows, err := query.Collect(query.New(s.emps).Where(query.Partition(sourcePK)).All(ctx))
	if err != nil {
		return nil, nil, nil, err
	}
	for _, r := range rows {
		if r.RowKey != r.EmployeeID {
			pending = append(pending, r.RowKey)
		} else {
			employees = append(employees, r)
		}
	}
	return index, pending, employees, nil
}

func (s store) show(ctx context.Context, label string) {
	index, pending, _, err := s.state(ctx)
	if err != nil {
		fmt.Println(label, err)
		return
	}
	fmt.Printf("%s: index {%s}, outbox %v\n", label, format(index), pending)
}

// format prints an index as email->id pairs in email order.
func format(index map[string]string) string {
	var parts []string
	for _, email := range slices.Sorted(maps.Keys(index)) {
		parts = append(parts, email+"->"+index[email])
	}
	return strings.Join(parts, " ")
}

// check requires the index to be exactly the employees' emails, with no
// outbox entry left.
func (s store) check(ctx context.Context, label string) error {
	index, pending, employees, err := s.state(ctx)
	if err != nil {
		return err
	}
	want := map[string]string{}
	for _, e := range employees {
		want[e.Email] = e.EmployeeID
	}
	fmt.Printf("%s: index {%s}, outbox %v\n", label, format(index), pending)
	if len(pending) != 0 {
		return fmt.Errorf("%s: outbox entries left: %v", label, pending)
	}
	if len(index) != len(want) {
		return fmt.Errorf("%s: index %v, want %v", label, index, want)
	}
	for email, id := range want {
		if index[email] != id {
			return fmt.Errorf("%s: index %v, want %v", label, index, want)
		}
	}
	return nil
}

// connectionString returns TABLEKIT_CONNECTION_STRING, or the local Azurite
// development account when it is not set.
func connectionString() string {
	if cs := os.Getenv("TABLEKIT_CONNECTION_STRING"); cs != "" {
		return cs
	}
	return "UseDevelopmentStorage=true"
}

// uniqueName returns prefix plus random hex: a fresh table per run, because a
// deleted table's name cannot be reused for 40 seconds or more.
func uniqueName(prefix string) string {
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
