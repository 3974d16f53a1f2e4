package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docRef is a Go comment's reference to a Markdown page, and to one of its
// sections when it names one.
type docRef struct {
	line    int
	file    string // as written: README, README.md, docs/queries.md
	heading string // "" when only the file is named
}

var (
	// refFile is a page a comment can name: README (README.md) or a
	// path ending in .md.
	refFile = `(README(?:\.md)?|(?:[\w.-]+/)*[\w-]+\.md)`
	// refPossessive is a page's name, 's and a section: the run of
	// capitalized words after it, which may be the start of a heading
	// ("Exit" names "Exit statuses").
	refPossessive = regexp.MustCompile(refFile + "'s\\s+((?:[A-Z0-9`][^\\s,.;:()]*)(?:\\s+[A-Z0-9`][^\\s,.;:()]*)*)")
	// refQuoted is a page's name and a heading in double quotes.
	refQuoted = regexp.MustCompile(refFile + `\s+"([^"\n]+)"`)
	// refBare is a page named on its own.
	refBare = regexp.MustCompile(`(?:^|[\s(\[])((?:[\w.-]+/)*[\w-]+\.md)\b`)
)

// commentRefs returns the references to Markdown pages and their sections
// in a comment's text; firstLine is the line the text starts on. A README
// named without 's or a quoted heading (another project's README) is not
// a reference to this one's.
func commentRefs(text string, firstLine int) []docRef {
	var out []docRef
	lineAt := func(i int) int { return firstLine + strings.Count(text[:i], "\n") }
	taken := map[int]bool{} // starts of file names already read as a section reference
	for _, re := range []*regexp.Regexp{refPossessive, refQuoted} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			heading := strings.Trim(text[m[4]:m[5]], "`")
			out = append(out, docRef{lineAt(m[0]), text[m[2]:m[3]], heading})
			taken[m[2]] = true
		}
	}
	for _, m := range refBare.FindAllStringSubmatchIndex(text, -1) {
		if !taken[m[2]] {
			out = append(out, docRef{lineAt(m[2]), text[m[2]:m[3]], ""})
		}
	}
	return out
}

func TestCommentRefs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want []docRef
	}{
		{"The README's Entities\nsection has the full table.", []docRef{{1, "README", "Entities"}}},
		{"as we saw,\nthe README's Entities section", []docRef{{2, "README", "Entities"}}},
		{"see docs/queries.md's Paging, which", []docRef{{1, "docs/queries.md", "Paging"}}},
		{"docs/command.md's Exit statuses: 2", []docRef{{1, "docs/command.md", "Exit"}}},
		{"(README \"Entities\" has the same table)", []docRef{{1, "README", "Entities"}}},
		{"docs/cosmos.md has every\ndifference", []docRef{{1, "docs/cosmos.md", ""}}},
		{"learn.microsoft.com/x\n(articles/x/limits.md): per item", []docRef{{2, "articles/x/limits.md", ""}}},
		{"a struct as the aztables README teaches it", nil},
		{"the README's quick start", nil}, // a lowercase word names no section
	}
	for _, tt := range tests {
		got := commentRefs(tt.text, 1)
		if len(got) != len(tt.want) {
			t.Errorf("commentRefs(%q) = %v, want %v", tt.text, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("commentRefs(%q)[%d] = %v, want %v", tt.text, i, got[i], tt.want[i])
			}
		}
	}
}

// headingMatches reports whether a Markdown text has a heading that is
// name, or begins with it and a word ends there ("Exit" names "Exit
// statuses"), in any case.
func headingMatches(text, name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	inCode := false
	for l := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
			continue
		}
		if inCode || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.Trim(strings.TrimSpace(strings.TrimLeft(l, "#")), "`"))
		if rest, ok := strings.CutPrefix(h, name); ok && (rest == "" || !isWord([]rune(rest)[0])) {
			return true
		}
	}
	return false
}

func TestHeadingMatches(t *testing.T) {
	t.Parallel()
	text := "# Entities\n## Typed entities\n```\n# Not a heading\n```\n## Exit statuses\n"
	tests := []struct {
		name string
		want bool
	}{
		{"Entities", true}, {"typed Entities", true}, {"Exit", true}, {"Exit statuses", true},
		{"Exi", false}, {"Not a heading", false}, {"Paging", false},
	}
	for _, tt := range tests {
		if got := headingMatches(text, tt.name); got != tt.want {
			t.Errorf("headingMatches(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestCommentReferences checks that every Go comment's reference to a
// Markdown page names a page that exists and, when it names a section, a
// heading of that page: a doc comment pointing at a section that was
// renamed or never written sends readers nowhere.
func TestCommentReferences(t *testing.T) {
	dir := root(t)
	checked := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != dir && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		for _, g := range f.Comments {
			for _, r := range commentRefs(groupText(g), fset.Position(g.Pos()).Line) {
				checked++
				if msg := checkRef(dir, filepath.Dir(path), r); msg != "" {
					t.Errorf("%s:%d: %s", rel, r.line, msg)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Errorf("got no references in comments, want table's to docs/cosmos.md at least")
	}
}

// groupText is a comment group's text line for line (ast's Text drops
// blank lines at the ends, which would shift the line numbers).
func groupText(g *ast.CommentGroup) string {
	lines := make([]string, len(g.List))
	for i, c := range g.List {
		s := strings.TrimPrefix(strings.TrimPrefix(c.Text, "//"), "/*")
		lines[i] = strings.TrimSuffix(s, "*/")
	}
	return strings.Join(lines, "\n")
}

// checkRef returns what is wrong with r, a reference in a Go file of the
// directory pkgDir, or "": its page is read from the repository root dir,
// else from pkgDir (a package's own README.md).
func checkRef(dir, pkgDir string, r docRef) string {
	name := r.file
	if name == "README" {
		name = "README.md"
	}
	var body []byte
	var err error
	for _, base := range []string{dir, pkgDir} {
		if body, err = os.ReadFile(filepath.Join(base, filepath.FromSlash(name))); err == nil {
			break
		}
	}
	if err != nil {
		if r.heading == "" && !ownDir(dir, pkgDir, name) {
			return "" // another project's page, as a path in its repository
		}
		return "reference to " + r.file + ": no such page"
	}
	if r.heading != "" && !headingMatches(string(body), r.heading) {
		return "reference to " + r.file + "'s " + r.heading + ": no such heading there"
	}
	return ""
}

// ownDir reports whether a page's path is in a directory of this
// repository (from the root or from the package's directory): a path in
// another project's repository, named in a comment with its source, is not
// checked.
func ownDir(dir, pkgDir, name string) bool {
	first, _, nested := strings.Cut(name, "/")
	if !nested {
		return true
	}
	for _, base := range []string{dir, pkgDir} {
		if fi, err := os.Stat(filepath.Join(base, first)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}
