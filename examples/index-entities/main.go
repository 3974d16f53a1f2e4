// Index entities, denormalization and compound keys: three ways to shape one
// partition so that common reads are a point read or a range.
//
// Index entities. Problem: "all employees named Jones" is a lookup by a
// property that is not unique and not a key, so it scans the partition.
// Pattern: an index entity per last name (RowKey "lastname_Jones") holds the
// list of matching employee ids. Hiring inserts the employee and updates the
// index entity in one transaction, conditional on the index's ETag; if
// another writer changed it first, the whole transaction is refused and is
// retried from a fresh read. Keep a list under the 1 MiB entity limit.
//
// Denormalization. Problem: showing a department with its manager's name and
// email takes two reads. Pattern: copy the manager's details into the
// department entity, and change both in one transaction so they never
// disagree. One point read then returns everything.
//
// Compound keys. Problem: an employee's yearly reviews should come back in
// one query and be updatable together with the employee. Pattern: RowKey
// "review_<id>_<year>" in the employee's partition; all reviews of an
// employee are a RowKey prefix range.
//
// Guarantees checked: with concurrent hires the index lists exactly the
// employees hired (no lost update); the denormalized copy matches the
// manager after a change; the prefix range returns exactly one employee's
// reviews, in year order.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// Row is any entity of a department partition. A transaction (batch) holds
// one Go type, so the kinds share this struct: the RowKey prefix says which
// kind a row is, the embedded struct of that kind is filled, and omitempty
// keeps the other kinds' properties out of storage.
type Row struct {
	PartitionKey string // the department
	RowKey       string // "emp_<id>", "lastname_<name>", "dept", "review_<id>_<year>"
	Employee
	NameIndex
	Department
	Review
	table.Meta
}

type Employee struct {
	FirstName string `table:",omitempty"`
	LastName  string `table:",omitempty"`
	Email     string `table:",omitempty"`
}

// NameIndex lists the ids of the employees with one last name.
type NameIndex struct {
	EmployeeIDs []string `table:",json,omitempty"`
}

// Department carries copies of its manager's details (denormalized).
type Department struct {
	ManagerID    string `table:",omitempty"`
	ManagerName  string `table:",omitempty"`
	ManagerEmail string `table:",omitempty"`
}

type Review struct {
	Year   int32 `table:",omitempty"`
	Rating int32 `table:",omitempty"`
}

const dept = "Sales"

func empKey(id string) string           { return "emp_" + id }
func indexKey(last string) string       { return "lastname_" + last }
func reviewKey(id string, y int) string { return "review_" + id + "_" + strconv.Itoa(y) }

func main() {
	log.SetFlags(0)
	log.SetPrefix("index-entities: ")
	if err := run(); err != nil {
		log.Fatalf("FAIL: %v", err)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	svc, err := table.NewService(connectionString(), nil)
	if err != nil {
		return err
	}
	rows, err := table.New[Row](svc, uniqueName("company"))
	if err != nil {
		return err
	}
	if err := svc.CreateTable(ctx, rows.Name()); err != nil {
		return err
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), rows.Name())
	fmt.Println("table", rows.Name())
	if err := indexEntities(ctx, rows); err != nil {
		return err
	}
	if err := denormalization(ctx, rows); err != nil {
		return err
	}
	if err := compoundKeys(ctx, rows); err != nil {
		return err
	}
	fmt.Println("OK: index complete under concurrency, copies consistent, reviews in one range")
	return nil
}

// ---- Index entities ----

func indexEntities(ctx context.Context, rows *table.Table[Row]) error {
	const writers, each = 6, 5
	var (
		wg        sync.WaitGroup
		conflicts atomic.Int64
		errs      = make(chan error, writers)
	)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := table.PadUint(uint64(100+w*each+i), 6)
				last := "Jones"
				if i == 0 {
					last = "Smith"
				}
				n, err := hire(ctx, rows, id, Employee{FirstName: "E" + id, LastName: last, Email: id + "@contoso.com"})
				conflicts.Add(int64(n))
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	fmt.Printf("index entities: %d concurrent writers hired %d employees (%d transactions refused on a stale index ETag and retried)\n",
		writers, writers*each, conflicts.Load())

	// Lookup: one point read for the ids, then point reads for the entities.
	for _, last := range []string{"Jones", "Smith"} {
		idx, err := rows.Get(ctx, dept, indexKey(last), nil)
		if err != nil {
			return err
		}
		// What the index should say: every employee with that name.
		all, err := query.Collect(query.New(rows).Where(query.And(query.Partition(dept), query.RowKey.HasPrefix("emp_"))).All(ctx))
		if err != nil {
			return err
		}
		var want []string
		for _, e := range all {
			if e.LastName == last {
				want = append(want, e.RowKey[len("emp_"):])
			}
		}
		got := slices.Sorted(slices.Values(idx.EmployeeIDs))
		fmt.Printf("  %s: index lists %d ids, %d employees have that name\n", indexKey(last), len(got), len(want))
		if !slices.Equal(got, want) {
			return fmt.Errorf("index %s lists %v, want %v", last, got, want)
		}
		first, err := rows.Get(ctx, dept, empKey(got[0]), nil)
		if err != nil {
			return err
		}
		if first.LastName != last {
			return fmt.Errorf("index %s points at %s %s", last, first.FirstName, first.LastName)
		}
	}
	return nil
}

// hire inserts an employee and adds its id to the last-name index in one
// transaction. It returns how many attempts lost a race for the index.
func hire(ctx context.Context, rows *table.Table[Row], id string, e Employee) (conflicts int, err error) {
	for {
		tx := batch.New(rows).Add(Row{PartitionKey: dept, RowKey: empKey(id), Employee: e})
		idx, err := rows.Get(ctx, dept, indexKey(e.LastName), nil)
		switch {
		case errors.Is(err, tablekit.ErrNotFound): // first of this name
			tx.Add(Row{PartitionKey: dept, RowKey: indexKey(e.LastName), NameIndex: NameIndex{EmployeeIDs: []string{id}}})
		case err != nil:
			return conflicts, err
		default: // only if nobody changed the index since we read it
			idx.EmployeeIDs = append(idx.EmployeeIDs, id)
			tx.Update(idx, table.Replace, idx.ETag)
		}
		_, err = tx.Submit(ctx)
		// The index operation (index 1) lost the race: someone updated or
		// created it since our read. Nothing was written; start over.
		var se *tablekit.ServiceError
		if errors.As(err, &se) && se.Index == 1 &&
			(errors.Is(err, tablekit.ErrPreconditionFailed) || errors.Is(err, tablekit.ErrAlreadyExists)) {
			conflicts++
			continue
		}
		return conflicts, err
	}
}

// ---- Denormalization ----

func denormalization(ctx context.Context, rows *table.Table[Row]) error {
	const mgr = "000100"
	m, err := rows.Get(ctx, dept, empKey(mgr), nil)
	if err != nil {
		return err
	}
	d := Row{PartitionKey: dept, RowKey: "dept",
		Department: Department{ManagerID: mgr, ManagerName: m.FirstName + " " + m.LastName, ManagerEmail: m.Email}}
	if _, err := rows.Add(ctx, d); err != nil {
		return err
	}

	// The manager changes email: the employee and the department's copy
	// change together, each only if unchanged since read.
	d, err = rows.Get(ctx, dept, "dept", nil)
	if err != nil {
		return err
	}
	m.Email, d.ManagerEmail = "boss@contoso.com", "boss@contoso.com"
	if _, err := batch.New(rows).Update(m, table.Replace, m.ETag).Update(d, table.Replace, d.ETag).Submit(ctx); err != nil {
		return err
	}

	// One point read shows the department with its manager.
	d, err = rows.Get(ctx, dept, "dept", nil)
	if err != nil {
		return err
	}
	m, err = rows.Get(ctx, dept, empKey(mgr), nil)
	if err != nil {
		return err
	}
	fmt.Printf("denormalization: one read of %s/dept: manager %s <%s>\n", dept, d.ManagerName, d.ManagerEmail)
	if d.ManagerEmail != m.Email {
		return fmt.Errorf("department says %s, manager's entity says %s", d.ManagerEmail, m.Email)
	}
	return nil
}

// ---- Compound keys ----

func compoundKeys(ctx context.Context, rows *table.Table[Row]) error {
	// Reviews of two employees, years written out of order.
	tx := batch.New(rows)
	for _, y := range []int{2023, 2021, 2024, 2022} {
		tx.Add(Row{PartitionKey: dept, RowKey: reviewKey("000101", y), Review: Review{Year: int32(y), Rating: int32(y % 5)}})
	}
	tx.Add(Row{PartitionKey: dept, RowKey: reviewKey("000102", 2024), Review: Review{Year: 2024, Rating: 3}})
	if _, err := tx.Submit(ctx); err != nil {
		return err
	}
	// Every review of 000101: the range of RowKeys starting with its prefix.
	// The "_" after the id keeps 0001010 from matching 000101.
	reviews, err := query.Collect(query.New(rows).
		Where(query.And(query.Partition(dept), query.RowKey.HasPrefix("review_000101_"))).
		Select("Year", "Rating").
		All(ctx))
	if err != nil {
		return err
	}
	var years []int32
	for _, r := range reviews {
		years = append(years, r.Year)
	}
	fmt.Printf("compound keys: reviews of 000101 in one range query: years %v\n", years)
	if !slices.Equal(years, []int32{2021, 2022, 2023, 2024}) {
		return fmt.Errorf("reviews of 000101: years %v, want 2021-2024 in order", years)
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
