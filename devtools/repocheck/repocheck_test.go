package repocheck

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxFileSize is the largest tracked file allowed: package-lock.json, the
// largest source file, is about 200 KiB.
const maxFileSize = 1 << 20

// executableMagic are the first bytes of the executables Go builds: ELF,
// Mach-O (32 and 64 bit, both byte orders), PE (MZ).
var executableMagic = [][]byte{
	{0x7f, 'E', 'L', 'F'},
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	{'M', 'Z'},
}

// TestTrackedFiles fails for every tracked file that is too large, that
// .gitignore excludes (a build output added with git add -f or before the
// rule), or that is a compiled executable.
func TestTrackedFiles(t *testing.T) {
	root := repoRoot(t)
	for _, name := range gitFiles(t, root, "ls-files", "-z") {
		if problem := check(filepath.Join(root, name)); problem != "" {
			t.Errorf("%s: %s", name, problem)
		}
	}
	for _, name := range gitFiles(t, root, "ls-files", "-z", "-i", "-c", "--exclude-standard") {
		t.Errorf("%s: tracked although .gitignore excludes it (a build output?); git rm --cached it", name)
	}
}

// TestCheck shows that check finds what it is for.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content []byte
		want    string
	}{
		{"source.go", []byte("package x\n"), ""},
		{"big.json", bytes.Repeat([]byte{' '}, maxFileSize+1), fmt.Sprintf("%d bytes, over the limit of %d", maxFileSize+1, maxFileSize)},
		{"limit.json", bytes.Repeat([]byte{' '}, maxFileSize), ""},
		{"elf", []byte("\x7fELF\x02\x01\x01"), "a compiled executable"},
		{"exe", []byte("MZ\x90\x00"), "a compiled executable"},
		{"macho", []byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}, "a compiled executable"},
		{"empty", nil, ""},
	}
	for _, tc := range tests {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, tc.content, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := check(p); got != tc.want {
			t.Errorf("check(%s): got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// check says what is wrong with the file at path, "" when nothing is. A
// tracked symbolic link or a file missing from the work tree (deleted, not
// yet committed) is not checked.
func check(path string) string {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	if fi.Size() > maxFileSize {
		return fmt.Sprintf("%d bytes, over the limit of %d", fi.Size(), maxFileSize)
	}
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	for _, m := range executableMagic {
		if n >= len(m) && bytes.Equal(head[:len(m)], m) {
			return "a compiled executable"
		}
	}
	return ""
}

// repoRoot is the work tree's top directory. Outside a git checkout the
// test cannot see what is tracked, and fails rather than pass unchecked.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse --show-toplevel: %v (the check needs a git checkout and git)", err)
	}
	return strings.TrimSpace(string(out))
}

// gitFiles runs git with args in root and returns the NUL-separated names
// it prints.
func gitFiles(t *testing.T, root string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	var names []string
	for _, n := range strings.Split(string(out), "\x00") {
		if n != "" {
			names = append(names, n)
		}
	}
	return names
}
