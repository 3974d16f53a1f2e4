// Package doccheck holds the test that keeps README.md and the manual in
// docs/ true to the code: every ```go block in them compiles against
// today's packages, and every relative link between them leads somewhere.
//
// A block that starts with a package clause is a whole file. Any other block
// is a fragment of a program: its type and named func declarations become
// top-level declarations of a package of its own, everything else the body
// of a function that returns an error (so a fragment may return err). The
// imports are those of the package names the block uses (context, errors,
// fmt, log, os, slog, http, time, the module's table, query, batch, retry
// and sas, aztables, azcore, policy, azidentity, and devtools' testenv for
// test fragments); free variables that fragments share (ctx, svc, orders and
// its Order type, a test's t) come from a short prelude, declared only where
// the block does not declare them itself. Each package is type-checked with go/types against export
// data from one run of `go list -export -deps`; every hard error fails the
// test at the Markdown file and line it comes from, while unused variables
// and imports (soft errors) are allowed.
//
// A block that is deliberately not a program (pseudo-code, a shape, code
// needing a package tablekit does not depend on) starts with the line
//
//	// fragment: why
//
// and is not compiled; at most maxFragments blocks per page may say so.
//
// Links: a relative link in README.md or docs/*.md must name a file or
// directory that exists, and its #anchor a heading of the Markdown file it
// names, as GitHub spells heading anchors.
//
// Comments: a Go comment anywhere in the module that names a page
// (README's, docs/queries.md's, a page's name followed by a quoted
// heading, or a path ending in .md) must name one that exists, and the
// section it names must be a heading of it (or the start of one). A path
// in a directory this repository does not have is another project's and
// is not checked.
package doccheck
