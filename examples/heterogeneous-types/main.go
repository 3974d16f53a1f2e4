// Heterogeneous entity types: several kinds of entity in one partition,
// told apart by a type discriminator and decoded into the right Go type.
//
// Problem: a table has no schema, so nothing says whether a row is an
// Employee or a Department unless you store it. Yet keeping related types in
// one partition is what makes entity group transactions (atomic writes) and
// single-query reads across them possible.
//
// Pattern: every entity carries an EntityType property with a version
// ("Employee.v1"), and its RowKey starts with the type ("EMPLOYEE_000123") so
// the types never collide and each type sorts together. A reader decodes the
// discriminator of each table.Entity, then converts it into the matching Go
// type; types it does not know (written by a newer release) are skipped, not
// fatal. Writes of several types go into one transaction as converted rows.
//
// Guarantee checked: one transaction stores all three types; one partition
// query returns every entity, each decoded into its own type with its own
// fields intact, and the unknown type is skipped.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

const (
	departmentV1 = "Department.v1"
	employeeV1   = "Employee.v1"
)

type Department struct {
	PartitionKey string // the department
	RowKey       string // "DEPARTMENT": one per partition
	EntityType   string // departmentV1
	Manager      string
	Budget       float64
}

type Employee struct {
	PartitionKey string // the department
	RowKey       string // "EMPLOYEE_" + zero-padded id
	EntityType   string // employeeV1
	Name         string
	Email        string
	Age          int32
}

// Badge stands for a type that a newer release of the app writes and this
// reader does not know yet.
type Badge struct {
	PartitionKey string
	RowKey       string
	EntityType   string
	Color        string
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("heterogeneous-types: ")
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
	name := uniqueName("hetero")
	// The table holds rows of every type: a Table[table.Entity] reads and
	// writes them all; typed handles on the same table come from table.As.
	rows, err := table.New[table.Entity](svc, name)
	if err != nil {
		return err
	}
	depts, err := table.As[Department](rows)
	if err != nil {
		return err
	}
	emps, err := table.As[Employee](rows)
	if err != nil {
		return err
	}
	badges, err := table.As[Badge](rows)
	if err != nil {
		return err
	}
	if err := svc.CreateTable(ctx, name); err != nil {
		return err
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), name)

	// Write three kinds of entity into the partition "Sales" in one atomic
	// transaction: each typed value is converted to a table.Entity.
	wantDept := Department{PartitionKey: "Sales", RowKey: "DEPARTMENT", EntityType: departmentV1,
		Manager: "Jones", Budget: 125000.5}
	wantEmps := map[string]Employee{}
	tx := batch.New(rows)
	add := func(v any) error {
		var e table.Entity
		var err error
		switch v := v.(type) {
		case Department:
			e, err = convert(depts, rows, v)
		case Employee:
			e, err = convert(emps, rows, v)
		case Badge:
			e, err = convert(badges, rows, v)
		}
		tx.Add(e)
		return err
	}
	if err := add(wantDept); err != nil {
		return err
	}
	for i, n := range []string{"Jones", "Smith", "Garcia"} {
		e := Employee{PartitionKey: "Sales", RowKey: "EMPLOYEE_" + table.PadUint(uint64(100+i), 6),
			EntityType: employeeV1, Name: n, Email: fmt.Sprintf("%s@contoso.com", n), Age: int32(30 + i)}
		wantEmps[e.RowKey] = e
		if err := add(e); err != nil {
			return err
		}
	}
	if err := add(Badge{PartitionKey: "Sales", RowKey: "BADGE_gold", EntityType: "Badge.v1", Color: "gold"}); err != nil {
		return err
	}
	if _, err := tx.Submit(ctx); err != nil {
		return err
	}
	fmt.Printf("table %s, partition Sales: 1 department, %d employees, 1 badge (a type this reader does not know), in one transaction\n", name, len(wantEmps))

	// A known key has a known type: a point read decodes straight into it.
	d, err := depts.Get(ctx, "Sales", "DEPARTMENT", nil)
	if err != nil {
		return err
	}
	fmt.Printf("point read: department managed by %s, budget %.2f\n", d.Manager, d.Budget)

	// One partition query returns every type as table.Entity; the
	// discriminator names the Go type each row is converted into.
	var gotDepts, gotEmps, skipped int
	for e, err := range query.New(rows).Where(query.Partition("Sales")).All(ctx) {
		if err != nil {
			return err
		}
		switch e.Properties["EntityType"] {
		case departmentV1:
			v, err := convert(rows, depts, e)
			if err != nil {
				return err
			}
			gotDepts++
			fmt.Printf("  %-18s Department  manager=%s budget=%.2f\n", v.RowKey, v.Manager, v.Budget)
			if v != wantDept {
				return fmt.Errorf("department decoded as %+v, want %+v", v, wantDept)
			}
		case employeeV1:
			v, err := convert(rows, emps, e)
			if err != nil {
				return err
			}
			gotEmps++
			fmt.Printf("  %-18s Employee    name=%s age=%d\n", v.RowKey, v.Name, v.Age)
			if v != wantEmps[v.RowKey] {
				return fmt.Errorf("employee decoded as %+v, want %+v", v, wantEmps[v.RowKey])
			}
		default:
			skipped++
			fmt.Printf("  %-18s skipped: unknown type %q\n", e.RowKey, e.Properties["EntityType"])
		}
	}
	if gotDepts != 1 || gotEmps != len(wantEmps) || skipped != 1 {
		return fmt.Errorf("decoded %d departments, %d employees, skipped %d; want 1, %d, 1",
			gotDepts, gotEmps, skipped, len(wantEmps))
	}
	fmt.Println("OK: every entity decoded into its own type; the unknown type was skipped")
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

// convert turns v into a D as writing it and reading it back would: the
// JSON of one view of the table (Marshal) read by another (Unmarshal).
func convert[S, D any](from *table.Table[S], to *table.Table[D], v S) (D, error) {
	body, err := from.Marshal(v)
	if err != nil {
		var zero D
		return zero, err
	}
	return to.Unmarshal(body)
}
