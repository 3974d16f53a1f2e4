package testenv

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// ExportedTypes lists the exported type names declared in the non-test Go
// files of the package in dir, so that a test walking a package's API can
// fail when a new type is missing from its list.
func ExportedTypes(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			tb.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				if ts := s.(*ast.TypeSpec); ts.Name.IsExported() {
					names = append(names, ts.Name.Name)
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// CheckZeroMethods calls every exported method of v (a pointer to a zero
// value, a nil pointer, or a zero value) with zero arguments, a live
// context for context parameters, and drains any iterator it returns. A
// panic fails the test, naming the method.
func CheckZeroMethods(t *testing.T, name string, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := 0; i < rv.NumMethod(); i++ {
		m := rv.Type().Method(i)
		fn := rv.Method(i)
		if _, ok := v.(fmt.Formatter); ok && m.Name == "Format" {
			// fmt supplies the State: print through fmt as callers do.
			fn = reflect.ValueOf(func() string { return fmt.Sprintf("%v %+v %#v %s", v, v, v, v) })
		}
		t.Run(name+"."+m.Name, func(t *testing.T) {
			if err := callZero(fn); err != nil {
				t.Errorf("%s.%s with zero arguments: %v", name, m.Name, err)
			}
		})
	}
}

var ctxType = reflect.TypeFor[context.Context]()

// callZero calls fn with zero arguments and drains iterators it returns,
// reporting a panic as an error.
func callZero(fn reflect.Value) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	ft := fn.Type()
	args := make([]reflect.Value, ft.NumIn())
	for i := range args {
		if in := ft.In(i); in == ctxType {
			args[i] = reflect.ValueOf(context.Background())
		} else {
			args[i] = reflect.Zero(in)
		}
	}
	var out []reflect.Value
	if ft.IsVariadic() {
		out = fn.CallSlice(args)
	} else {
		out = fn.Call(args)
	}
	for _, o := range out {
		drain(o)
	}
	return nil
}

// drain runs an iter.Seq or iter.Seq2 to its end, at most 10 elements.
func drain(o reflect.Value) {
	ot := o.Type()
	if ot.Kind() != reflect.Func || o.IsNil() || ot.NumIn() != 1 || ot.NumOut() != 0 {
		return
	}
	yt := ot.In(0)
	if yt.Kind() != reflect.Func || yt.NumOut() != 1 || yt.Out(0).Kind() != reflect.Bool {
		return
	}
	n := 0
	yield := reflect.MakeFunc(yt, func([]reflect.Value) []reflect.Value {
		n++
		return []reflect.Value{reflect.ValueOf(n < 10)}
	})
	o.Call([]reflect.Value{yield})
}

// CheckZeroValues is the whole zero-value walk of a package's tests: zero
// must hold a zero value of every exported type declared in the package in
// the working directory (a missing one fails the test, so new types are
// not forgotten), and every method of each is called by CheckZeroMethods.
func CheckZeroValues(t *testing.T, zero map[string]any) {
	t.Helper()
	listed := slices.Sorted(maps.Keys(zero))
	if got := ExportedTypes(t, "."); !slices.Equal(got, listed) {
		t.Fatalf("exported types %v, listed %v: add the new type to the test's list", got, listed)
	}
	for name, v := range zero {
		CheckZeroMethods(t, name, v)
	}
}
