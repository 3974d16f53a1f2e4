package doccheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// maxFragments is how many blocks of one page may be marked
// "// fragment: why" and left uncompiled.
const maxFragments = 2

const module = "github.com/tablekit/tablekit"

// imports maps a package name a block may use to its import path: a block
// names packages, never imports them, unless it is a whole file.
var imports = map[string]string{
	"context":    "context",
	"errors":     "errors",
	"fmt":        "fmt",
	"http":       "net/http",
	"io":         "io",
	"json":       "encoding/json",
	"log":        "log",
	"os":         "os",
	"slog":       "log/slog",
	"strings":    "strings",
	"testing":    "testing",
	"time":       "time",
	"tablekit":   module,
	"table":      module + "/table",
	"query":      module + "/query",
	"batch":      module + "/batch",
	"retry":      module + "/retry",
	"sas":        module + "/sas",
	"backup":     module + "/backup",
	"blobstore":  module + "/backup/blobstore",
	"aztables":   "github.com/Azure/azure-sdk-for-go/sdk/data/aztables",
	"azcore":     "github.com/Azure/azure-sdk-for-go/sdk/azcore",
	"policy":     "github.com/Azure/azure-sdk-for-go/sdk/azcore/policy",
	"azidentity": "github.com/Azure/azure-sdk-for-go/sdk/azidentity",
	"testenv":    module + "/devtools/testenv",
}

// prelude declares the free variables fragments share. Each entry is added
// to a fragment's package unless the fragment declares the name itself at
// the top level (a block with its own Order type keeps it).
var prelude = []struct{ name, src string }{
	{"ctx", "var ctx context.Context = context.Background()"},
	{"svc", "var svc *table.Service"},
	{"Order", `type Order struct {
	PartitionKey, RowKey string
	Kind                 string
	Total                float64
	Placed               time.Time
	table.Meta
}`},
	{"orders", "var orders *table.Table[Order]"},
	{"t", "var t *testing.T"},
}

// block is one ```go block of a Markdown file.
type block struct {
	file string // relative to the repository root
	line int    // of the block's first line of code
	code string
}

func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("repository root: %v", err)
	}
	return dir
}

// pages returns README.md and docs/*.md, relative to the root.
func pages(t *testing.T, dir string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, d := range docs {
		out = append(out, filepath.Join("docs", filepath.Base(d)))
	}
	return out
}

// goBlocks returns the ```go blocks of a Markdown text.
func goBlocks(file, text string) ([]block, error) {
	var (
		out   []block
		cur   *block
		fence string
		code  strings.Builder
	)
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		switch {
		case fence == "" && strings.HasPrefix(trim, "```"):
			fence = "```"
			if strings.TrimSpace(strings.TrimPrefix(trim, "```")) == "go" {
				cur = &block{file: file, line: n + 1}
				code.Reset()
			}
		case fence != "" && trim == fence:
			fence = ""
			if cur != nil {
				cur.code = code.String()
				out = append(out, *cur)
				cur = nil
			}
		case cur != nil:
			code.WriteString(line)
			code.WriteByte('\n')
		}
	}
	if fence != "" {
		return out, fmt.Errorf("%s: a code fence is not closed", file)
	}
	return out, sc.Err()
}

func TestGoBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		md   string
		want []block
	}{
		{"none", "text\n```\nshell\n```\n", nil},
		{"one", "a\n\n```go\nx := 1\n```\n", []block{{"f.md", 4, "x := 1\n"}}},
		{"two and others", "```go\na()\n```\n```sh\nls\n```\n```go\nb()\nc()\n```\n",
			[]block{{"f.md", 2, "a()\n"}, {"f.md", 8, "b()\nc()\n"}}},
	}
	for _, tt := range tests {
		got, err := goBlocks("f.md", tt.md)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if _, err := goBlocks("f.md", "```go\nx\n"); err == nil {
		t.Errorf("an open fence: got no error, want one")
	}
}

// fragmentReason returns why a block is marked not to be compiled, or "".
func fragmentReason(code string) string {
	first, _, _ := strings.Cut(strings.TrimLeft(code, "\n"), "\n")
	if r, ok := strings.CutPrefix(strings.TrimSpace(first), "// fragment:"); ok {
		return strings.TrimSpace(r)
	}
	return ""
}

// isFile reports whether a block is a whole file: its first line of code
// (after comments) is a package clause.
func isFile(code string) bool {
	for l := range strings.Lines(code) {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		return strings.HasPrefix(l, "package ")
	}
	return false
}

// split sorts a fragment's lines into top-level declarations (type and
// named func declarations, methods included) and statements, each a run of
// whole lines with the 1-based line in the block where it starts.
type chunk struct {
	line int
	text string
}

func split(code string) (decls, stmts []chunk, err error) {
	type tk struct {
		tok  token.Token
		line int
	}
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(code))
	var s scanner.Scanner
	s.Init(f, []byte(code), func(pos token.Position, msg string) {
		if err == nil {
			err = fmt.Errorf("%d:%d: %s", pos.Line, pos.Column, msg)
		}
	}, 0)
	var toks []tk
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		toks = append(toks, tk{tok, f.Line(pos)})
	}
	if err != nil {
		return nil, nil, err
	}
	// closing returns the index of the token that closes the one at i.
	closing := func(i int) int {
		d := 0
		for ; i < len(toks); i++ {
			switch toks[i].tok {
			case token.LBRACE, token.LPAREN, token.LBRACK:
				d++
			case token.RBRACE, token.RPAREN, token.RBRACK:
				if d--; d == 0 {
					return i
				}
			}
		}
		return len(toks) - 1
	}
	lines := strings.SplitAfter(code, "\n")
	isDecl := make([]bool, len(lines)+2) // by 1-based line
	depth := 0
	for i := 0; i < len(toks); i++ {
		atStmt := i == 0 || toks[i-1].tok == token.SEMICOLON
		if depth == 0 && atStmt && declStart(toks[i].tok, func(j int) token.Token {
			if i+j < len(toks) {
				return toks[i+j].tok
			}
			return token.EOF
		}, func(j int) int { return closing(i+j) - i }) {
			start := toks[i].line
			for ; i < len(toks); i++ { // to the semicolon that ends it
				switch toks[i].tok {
				case token.LBRACE, token.LPAREN, token.LBRACK:
					depth++
				case token.RBRACE, token.RPAREN, token.RBRACK:
					depth--
				}
				if depth == 0 && toks[i].tok == token.SEMICOLON {
					break
				}
			}
			end := toks[min(i, len(toks)-1)].line
			for l := start; l <= end; l++ {
				isDecl[l] = true
			}
			continue
		}
		switch toks[i].tok {
		case token.LBRACE, token.LPAREN, token.LBRACK:
			depth++
		case token.RBRACE, token.RPAREN, token.RBRACK:
			depth--
		}
	}
	for i, l := range lines {
		n := i + 1
		to := &stmts
		if isDecl[n] {
			to = &decls
		}
		if k := len(*to); k > 0 && (*to)[k-1].line+strings.Count((*to)[k-1].text, "\n") == n {
			(*to)[k-1].text += l
		} else if l != "" {
			*to = append(*to, chunk{n, l})
		}
	}
	return decls, stmts, nil
}

// declStart reports whether a statement beginning with tok is a type or
// named func declaration: type T, func F, func (r T) M; not a func literal
// such as func() {...}() or func(x int) T {...}(1). at(j) is the token j
// after tok, closing(j) the index of the token closing the one at j.
func declStart(tok token.Token, at func(j int) token.Token, closing func(j int) int) bool {
	switch {
	case tok == token.TYPE:
		return true
	case tok != token.FUNC:
		return false
	case at(1) == token.IDENT:
		return true
	case at(1) == token.LPAREN:
		r := closing(1) // the receiver's, or the literal's parameters'
		return at(r+1) == token.IDENT && (at(r+2) == token.LPAREN || at(r+2) == token.LBRACK)
	}
	return false
}

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		code         string
		decls, stmts []chunk
	}{
		{"statements", "x := 1\nf(x)\n", nil, []chunk{{1, "x := 1\nf(x)\n"}}},
		{"type and statements", "type T struct {\n\tA int\n}\n\nv := T{}\n",
			[]chunk{{1, "type T struct {\n\tA int\n}\n"}}, []chunk{{4, "\nv := T{}\n"}}},
		{"func, method, literal", "func F() {}\nfunc (T) M() {\n}\nfunc() {}()\n",
			[]chunk{{1, "func F() {}\nfunc (T) M() {\n}\n"}}, []chunk{{4, "func() {}()\n"}}},
		{"func in a statement", "x := func() int {\n\treturn 1\n}\n", nil,
			[]chunk{{1, "x := func() int {\n\treturn 1\n}\n"}}},
	}
	for _, tt := range tests {
		decls, stmts, err := split(tt.code)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(decls, tt.decls) || !slices.Equal(stmts, tt.stmts) {
			t.Errorf("%s: got %+v and %+v, want %+v and %+v", tt.name, decls, stmts, tt.decls, tt.stmts)
		}
	}
}

// usedPackages returns the import paths of the package names used as
// selector bases in the files.
func usedPackages(files ...*ast.File) []string {
	seen := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					if path, ok := imports[id.Name]; ok {
						seen[path] = true
					}
				}
			}
			return true
		})
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func importDecl(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "import %q\n", p)
	}
	return b.String()
}

// program turns a block into the sources of one package: file name to
// source. //line directives map the block's code to its Markdown lines.
func program(b block) (map[string]string, error) {
	at := func(line int) string { return fmt.Sprintf("\n//line %s:%d:1\n", b.file, b.line+line-1) }
	if isFile(b.code) {
		return map[string]string{"block.go": at(1)[1:] + b.code}, nil
	}
	decls, stmts, err := split(b.code)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %v", b.file, b.line, err)
	}
	var body strings.Builder
	for _, c := range decls {
		body.WriteString(at(c.line) + c.text)
	}
	body.WriteString("\nfunc _() error {")
	for _, c := range stmts {
		body.WriteString(at(c.line) + c.text)
	}
	body.WriteString("\nreturn nil\n}\n")
	src := body.String()

	// The names the block declares at the top level, and the packages it uses.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "block.go", "package doc\n"+src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	declared := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				declared[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					declared[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						declared[n.Name] = true
					}
				}
			}
		}
	}
	var pre strings.Builder
	for _, p := range prelude {
		if !declared[p.name] {
			pre.WriteString(p.src + "\n")
		}
	}
	pf, err := parser.ParseFile(fset, "prelude.go", "package doc\n"+pre.String(), parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("prelude: %v", err)
	}
	return map[string]string{
		"block.go":   "package doc\n" + at(1)[1:] + importDecl(usedPackages(f)) + src,
		"prelude.go": "package doc\n" + importDecl(usedPackages(pf)) + pre.String(),
	}, nil
}

// exports runs go list -export once and returns the export data file of
// every package the blocks may import, and of their dependencies.
var exports = sync.OnceValues(func() (map[string]string, error) {
	args := []string{"list", "-e", "-export", "-deps", "-json=ImportPath,Export"}
	for _, p := range imports {
		args = append(args, p)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	m := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Export != "" {
			m[p.ImportPath] = p.Export
		}
	}
	return m, nil
})

// check type-checks a block and returns its hard errors, positioned in the
// Markdown file.
func check(imp types.Importer, fset *token.FileSet, b block) []string {
	srcs, err := program(b)
	if err != nil {
		return []string{err.Error()}
	}
	var files []*ast.File
	var errs []string
	for _, name := range []string{"prelude.go", "block.go"} {
		src, ok := srcs[name]
		if !ok {
			continue
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			var list scanner.ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					errs = append(errs, e.Error())
				}
				continue
			}
			errs = append(errs, err.Error())
			continue
		}
		files = append(files, f)
	}
	if len(errs) > 0 {
		return errs
	}
	conf := types.Config{
		Importer: imp,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok && !te.Soft {
				errs = append(errs, fmt.Sprintf("%s: %s", te.Fset.Position(te.Pos), te.Msg))
			}
		},
	}
	_, _ = conf.Check("doc", fset, files, nil)
	return errs
}

func TestBlocksCompile(t *testing.T) {
	dir := root(t)
	exp, err := exports()
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exp[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s (is it in doccheck's imports, and does it exist?)", path)
		}
		return os.Open(f)
	})
	total := 0
	for _, page := range pages(t, dir) {
		text, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := goBlocks(page, string(text))
		if err != nil {
			t.Error(err)
		}
		fragments := 0
		for _, b := range blocks {
			if r := fragmentReason(b.code); r != "" {
				fragments++
				continue
			}
			total++
			for _, e := range check(imp, fset, b) {
				t.Errorf("%s (block at %s:%d)", e, b.file, b.line)
			}
		}
		if fragments > maxFragments {
			t.Errorf("%s: %d blocks marked \"// fragment:\", at most %d: make the others compile", page, fragments, maxFragments)
		}
	}
	if total == 0 {
		t.Errorf("no Go block was compiled: got 0 blocks, want README.md's quick start at least")
	}
}

func TestCheckFindsErrors(t *testing.T) {
	exp, err := exports()
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exp[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	tests := []struct {
		name, code string
		want       string // in the only error; "" for none
	}{
		{"fine", "o, err := orders.Get(ctx, \"p\", \"r\", nil)\n", ""},
		{"unused import and variable are soft", "x := time.Now()\n", ""},
		{"own Order type", "type Order struct{ PartitionKey, RowKey string }\nt, _ := table.New[Order](svc, \"o\")\n_ = t\n", ""},
		{"whole file", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n", ""},
		{"stale name", "x := 1\n_ = table.NoSuchThing\n", "f.md:11:11: undefined: table.NoSuchThing"},
		{"wrong type", "var n int = \"s\"\n", "f.md:10:"},
		{"syntax", "for x := range y { ... }\n", "f.md:10:"},
		{"root package", "_ = tablekit.ErrNotFound\n", ""},
		{"stale root name", "_ = tablekit.ErrNotFound2\n", "f.md:10:14: undefined: tablekit.ErrNotFound2"},
	}
	for _, tt := range tests {
		got := check(imp, fset, block{file: "f.md", line: 10, code: tt.code})
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("%s: got %q, want no error", tt.name, got)
		case tt.want != "" && (len(got) == 0 || !strings.Contains(got[0], tt.want)):
			t.Errorf("%s: got %q, want an error containing %q", tt.name, got, tt.want)
		}
	}
}

// headingAnchors returns the anchors GitHub makes for a Markdown file's
// headings: lowercased, punctuation other than - and _ dropped, spaces as
// -, a repeated anchor suffixed -1, -2, ...
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	inCode := false
	for l := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
			continue
		}
		if inCode || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || isWord(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		for i := 1; out[a]; i++ {
			a = fmt.Sprintf("%s-%d", b.String(), i)
		}
		out[a] = true
	}
	return out
}

func isWord(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && !strings.ContainsRune("–—…’“”·×±", r)
}

func TestHeadingAnchors(t *testing.T) {
	t.Parallel()
	got := headingAnchors("# Errors\n## Ambiguous writes\n```\n# not a heading\n```\n## Queries: filters, resumable paging\n## `Table[T]`.Get\n## Errors\n")
	for _, want := range []string{"errors", "ambiguous-writes", "queries-filters-resumable-paging", "tabletget", "errors-1"} {
		if !got[want] {
			t.Errorf("got %v, want %q among them", got, want)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("got %v: a line in a code block is not a heading", got)
	}
}

var (
	codeSpan = regexp.MustCompile("`[^`]*`")
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// links returns the relative link targets of a Markdown text with their
// lines, outside code blocks and code spans.
func links(text string) (out []struct {
	line   int
	target string
}) {
	inCode := false
	n := 0
	for l := range strings.Lines(text) {
		n++
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(codeSpan.ReplaceAllString(l, ""), -1) {
			if regexp.MustCompile(`^[a-z][a-z+.-]*:`).MatchString(m[1]) {
				continue // https:, mailto:
			}
			out = append(out, struct {
				line   int
				target string
			}{n, m[1]})
		}
	}
	return out
}

func TestLinks(t *testing.T) {
	dir := root(t)
	checked := 0
	for _, page := range pages(t, dir) {
		text, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links(string(text)) {
			checked++
			path, frag, _ := strings.Cut(l.target, "#")
			target := filepath.Join(dir, page)
			if path != "" {
				target = filepath.Join(dir, filepath.Dir(page), filepath.FromSlash(path))
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s:%d: link %s: no such file or directory", page, l.line, l.target)
				continue
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s:%d: link %s: an anchor in a file that is not Markdown", page, l.line, l.target)
				continue
			}
			body, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			if !headingAnchors(string(body))[frag] {
				t.Errorf("%s:%d: link %s: no heading with anchor #%s", page, l.line, l.target, frag)
			}
		}
	}
	if checked == 0 {
		t.Errorf("got no links, want README.md's links to docs/ at least")
	}
}
