// Package repocheck holds the test that the repository tracks source only:
// no file over 1 MiB, no build output (a file .gitignore excludes, or a
// compiled executable). A binary committed by mistake bloats every clone
// for good; the test makes CI fail on the commit that adds one.
package repocheck
