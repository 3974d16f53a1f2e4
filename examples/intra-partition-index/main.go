// Intra-partition secondary index: find an entity by another unique property.
//
// Problem: only PartitionKey and RowKey are indexed. Looking an employee up
// by email would scan the whole department partition, and results can only
// be sorted by RowKey.
//
// Pattern: store each employee twice in its department's partition, once
// under RowKey "empid_<id>" and once under "email_<address>". Both are point
// reads, and each prefix gives a sorted range ("all emails starting with
// j"). Because both copies are in one partition, an entity group transaction
// writes them together: readers never see one copy without the other, and
// an email change (update one copy, delete the old email copy, insert the new
// one) happens entirely or not at all. The empid copy's ETag guards against
// a concurrent change.
//
// Guarantee checked: lookups by id and by email agree after every change;
// a change that fails (stale ETag) writes nothing; after a successful one the
// old email no longer finds anybody.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// Employee is stored twice per employee. Both copies are this type (a
// transaction holds one Go type); the email copy leaves out Age (omitempty),
// since no query by email needs it: duplicate only what the queries read.
type Employee struct {
	PartitionKey string // department
	RowKey       string // "empid_<id>" or "email_<address>"
	EmployeeID   string
	Name         string
	Email        string
	Age          int32 `table:",omitempty"`
	table.Meta
}

func idKey(id string) string       { return "empid_" + id }
func emailKey(email string) string { return "email_" + email }

func main() {
	log.SetFlags(0)
	log.SetPrefix("intra-partition-index: ")
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
	emps, err := table.New[Employee](svc, uniqueName("employees"))
	if err != nil {
		return err
	}
	if err := svc.CreateTable(ctx, emps.Name()); err != nil {
		return err
	}
	defer svc.DeleteTable(context.WithoutCancel(ctx), emps.Name())
	fmt.Println("table", emps.Name())

	for _, e := range []Employee{
		{PartitionKey: "Sales", EmployeeID: "000223", Name: "Jones", Email: "jonesj@contoso.com", Age: 34},
		{PartitionKey: "Sales", EmployeeID: "000224", Name: "Smith", Email: "smithk@contoso.com", Age: 45},
		{PartitionKey: "Sales", EmployeeID: "000225", Name: "Jackson", Email: "jacksonm@contoso.com", Age: 29},
	} {
		if err := hire(ctx, emps, e); err != nil {
			return err
		}
	}
	fmt.Println("hired 3 employees: 2 entities each, written by one transaction each")
	if err := check(ctx, emps); err != nil {
		return err
	}

	byEmail, err := emps.Get(ctx, "Sales", emailKey("jonesj@contoso.com"), nil)
	if err != nil {
		return err
	}
	fmt.Printf("by email jonesj@contoso.com: employee %s, %s (one point read)\n", byEmail.EmployeeID, byEmail.Name)
	js, err := query.Collect(query.New(emps).Where(query.And(query.Partition("Sales"), query.RowKey.HasPrefix(emailKey("j")))).All(ctx))
	if err != nil {
		return err
	}
	fmt.Print("emails starting with j, sorted:")
	for _, e := range js {
		fmt.Print(" ", e.Email)
	}
	fmt.Println()

	// Change Jones's email. Read the empid copy for its ETag first.
	jones, err := emps.Get(ctx, "Sales", idKey("000223"), nil)
	if err != nil {
		return err
	}
	// Someone else changes Jones meanwhile (a birthday): our ETag is stale.
	birthday := jones
	birthday.Age++
	if _, err := emps.Update(ctx, birthday, table.Replace, birthday.ETag); err != nil {
		return err
	}
	err = changeEmail(ctx, emps, jones, "jones.j@contoso.com")
	fmt.Printf("email change with a stale ETag: %v\n", err)
	if !errors.Is(err, tablekit.ErrPreconditionFailed) {
		return fmt.Errorf("stale change: got %v, want tablekit.ErrPreconditionFailed", err)
	}
	if err := check(ctx, emps); err != nil { // nothing of it was written
		return err
	}

	// Read again and retry: now it commits, all three operations at once.
	jones, err = emps.Get(ctx, "Sales", idKey("000223"), nil)
	if err != nil {
		return err
	}
	if err := changeEmail(ctx, emps, jones, "jones.j@contoso.com"); err != nil {
		return err
	}
	fmt.Println("email change after a fresh read: committed")
	if err := check(ctx, emps); err != nil {
		return err
	}
	if _, err := emps.Get(ctx, "Sales", emailKey("jonesj@contoso.com"), nil); !errors.Is(err, tablekit.ErrNotFound) {
		return fmt.Errorf("the old email still finds someone (%v)", err)
	}
	fmt.Println("OK: both copies always agree; the old email finds nobody")
	return nil
}

// hire writes both copies of a new employee atomically. Add fails the whole
// transaction if either key is taken (a duplicate id or email).
func hire(ctx context.Context, emps *table.Table[Employee], e Employee) error {
	byID, byEmail := e, e
	byID.RowKey = idKey(e.EmployeeID)
	byEmail.RowKey, byEmail.Age = emailKey(e.Email), 0
	_, err := batch.New(emps).Add(byID).Add(byEmail).Submit(ctx)
	return err
}

// changeEmail moves an employee to a new email in one transaction: update
// the empid copy if it is unchanged since it was read (old's ETag), delete
// the old email copy and insert the new one.
func changeEmail(ctx context.Context, emps *table.Table[Employee], old Employee, email string) error {
	byID := old
	byID.Email = email
	byEmail := byID
	byEmail.RowKey, byEmail.Age = emailKey(email), 0
	_, err := batch.New(emps).
		Update(byID, table.Replace, old.ETag).
		Delete("Sales", emailKey(old.Email), table.AnyETag).
		Add(byEmail).
		Submit(ctx)
	return err
}

// check verifies the index: every empid copy has exactly one email copy
// with the same data, and every email copy belongs to an empid copy.
func check(ctx context.Context, emps *table.Table[Employee]) error {
	all, err := query.Collect(query.New(emps).Where(query.Partition("Sales")).All(ctx))
	if err != nil {
		return err
	}
	byID, byEmail := map[string]Employee{}, map[string]Employee{}
	for _, e := range all {
		switch {
		case e.RowKey == idKey(e.EmployeeID):
			byID[e.EmployeeID] = e
		case e.RowKey == emailKey(e.Email):
			byEmail[e.Email] = e
		default:
			return fmt.Errorf("stray entity %s", e.RowKey)
		}
	}
	for id, e := range byID {
		c, ok := byEmail[e.Email]
		if !ok || c.EmployeeID != id || c.Name != e.Name {
			return fmt.Errorf("employee %s (%s) has no matching email copy", id, e.Email)
		}
	}
	if len(byEmail) != len(byID) {
		return fmt.Errorf("%d email copies for %d employees", len(byEmail), len(byID))
	}
	fmt.Printf("  index consistent: %d employees, %d email entries\n", len(byID), len(byEmail))
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
