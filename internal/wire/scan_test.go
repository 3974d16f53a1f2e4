package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var scanSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+3`, `true`, `false`, `null`,
	`{"a":[1,{"b":"c"}],"d":null}`,
	`"tab\there \b\f\n\r \/ \\ \" é \ud83d\ude00 \ud800 \udc00 \ud800\u0041"`,
	"\"invalid \xff utf8 \xe2\x82\"",
	`{"a":1,}`, `{"a"}`, `{"a":}`, `[1,]`, `01`, `-`, `1.`, `1e`, `tru`, `"\x"`, `"\u12"`, "\"\x01\"", `{`, `"`, `{"a":1} x`,
	strings.Repeat("[", MaxDepth+1),
}

// TestSkip: the scanner accepts exactly what encoding/json accepts.
func TestSkip(t *testing.T) {
	for _, in := range scanSeeds {
		checkSkip(t, []byte(in))
	}
}

func checkSkip(t *testing.T, in []byte) {
	t.Helper()
	s := Scanner{Data: in}
	err := s.Skip()
	if err == nil {
		err = s.End()
	}
	if want := json.Valid(in); (err == nil) != want {
		t.Errorf("Skip(%q) error = %v, want valid %v", in, err, want)
	}
	var se *SyntaxError
	if err != nil && !errors.As(err, &se) {
		t.Errorf("Skip(%q) error %T, want *SyntaxError", in, err)
	}
}

// TestString: strings decode as json.Unmarshal decodes them.
func TestString(t *testing.T) {
	for _, in := range scanSeeds {
		checkString(t, []byte(in))
	}
}

// checkString compares with json.Unmarshal; only for input that starts
// with a quote (json.Unmarshal also takes null for a string).
func checkString(t *testing.T, in []byte) {
	t.Helper()
	if len(in) == 0 || in[0] != '"' {
		return
	}
	var want string
	werr := json.Unmarshal(in, &want)
	s := Scanner{Data: in}
	got, gerr := s.String()
	if gerr == nil {
		gerr = s.End()
	}
	switch {
	case werr == nil && gerr != nil:
		t.Errorf("String(%q) fails (%v), json gives %q", in, gerr, want)
	case werr == nil && string(got) != want:
		t.Errorf("String(%q) = %q, want %q", in, got, want)
	case werr != nil && gerr == nil:
		t.Errorf("String(%q) = %q, but json fails: %v", in, got, werr)
	}
}

func TestObject(t *testing.T) {
	s := Scanner{Data: []byte(` {"a" : 1 , "b\u0021" : "x" } `)}
	var got []string
	err := s.Object(func(name []byte) error {
		got = append(got, string(name))
		return s.Skip()
	})
	if err == nil {
		err = s.End()
	}
	if err != nil || strings.Join(got, ",") != "a,b!" {
		t.Errorf("Object = %q, %v; want [a b!], nil", got, err)
	}
	stop := errors.New("stop")
	s = Scanner{Data: []byte(`{"a":1}`)}
	if err := s.Object(func([]byte) error { return stop }); err != stop {
		t.Errorf("Object with a failing member = %v, want the member's error", err)
	}
}

func FuzzScanner(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkSkip(t, in)
		checkString(t, in)
	})
}

// TestHasControl: the word-at-a-time check agrees with a byte loop for a
// control character (or none) at every position, next to bytes at the
// edges (0x1f, 0x20, 0x7f, 0x80, 0xff).
func TestHasControl(t *testing.T) {
	naive := func(v []byte) bool {
		for _, c := range v {
			if c < 0x20 {
				return true
			}
		}
		return false
	}
	for _, fill := range []byte{0x20, 0x21, 0x7f, 0x80, 0xa0, 0xff} {
		for n := 0; n <= 20; n++ {
			for at := -1; at < n; at++ {
				for _, bad := range []byte{0x00, 0x1f, 0x0a} {
					v := bytes.Repeat([]byte{fill}, n)
					if at >= 0 {
						v[at] = bad
					}
					if got, want := hasControl(v), naive(v); got != want {
						t.Fatalf("hasControl(% x) = %v, want %v", v, got, want)
					}
				}
			}
		}
	}
}

// TestCleanText: the word-at-a-time check agrees with a byte loop for every
// byte value at every position of strings of every length up to 70 (its
// four-word, one-word and byte loops), over
// fills at the edges, with and without the ASCII-only check.
func TestCleanText(t *testing.T) {
	naive := func(v []byte, high uint64) bool {
		for _, c := range v {
			if c < 0x20 || c == '\\' || high != 0 && c >= 0x80 {
				return false
			}
		}
		return true
	}
	// -short: every byte value at lengths that cross each loop's edge.
	lengths := func(yield func(int) bool) {
		for n := 0; n <= 70; n++ {
			if (!testing.Short() || n <= 9 || n >= 31 && n <= 33 || n >= 39 && n <= 41 || n >= 64 && n <= 66) && !yield(n) {
				return
			}
		}
	}
	for _, fill := range []byte{0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xdc, 0xff} {
		for n := range lengths {
			for at := -1; at < n; at++ {
				for c := 0; c < 256; c++ {
					v := bytes.Repeat([]byte{fill}, n)
					if at >= 0 {
						v[at] = byte(c)
					}
					for _, high := range []uint64{0, 0x80} {
						if got, want := cleanText(v, high), naive(v, high); got != want {
							t.Fatalf("cleanText(% x, %#x) = %v, want %v", v, high, got, want)
						}
					}
				}
			}
		}
	}
}

// TestPlainEnd: the word-at-a-time search agrees with a byte loop for one
// byte of every value at every position of strings of every length up to
// 70 (its four-word, one-word and byte loops), and for every pair of
// positions holding two of the bytes at the edges of its tests (a borrow
// from the first must not hide or fake the second) up to 40.
func TestPlainEnd(t *testing.T) {
	naive := func(v []byte) int {
		for i, c := range v {
			switch {
			case c == '"':
				return i
			case c < 0x20 || c == '\\' || c >= 0x80:
				return -1
			}
		}
		return -1
	}
	check := func(v []byte) {
		t.Helper()
		if got, want := plainEnd(v), naive(v); got != want {
			t.Fatalf("plainEnd(% x) = %d, want %d", v, got, want)
		}
	}
	edges := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xff}
	for _, fill := range []byte{0x20, 0x21, 0x23, 0x5d, 0x7f, 0x80} {
		for n := 0; n <= 70; n++ {
			if testing.Short() && n > 9 && (n < 31 || n > 33) && (n < 39 || n > 41) && (n < 64 || n > 66) {
				continue
			}
			for at := -1; at < n; at++ {
				for c := 0; c < 256; c++ {
					v := bytes.Repeat([]byte{fill}, n)
					if at >= 0 {
						v[at] = byte(c)
					}
					check(v)
				}
			}
			if n > 40 || testing.Short() && n > 12 && n != 33 {
				continue
			}
			for a := 0; a < n; a++ {
				for b := a + 1; b < n; b++ {
					for _, c1 := range edges {
						for _, c2 := range edges {
							v := bytes.Repeat([]byte{fill}, n)
							v[a], v[b] = c1, c2
							check(v)
						}
					}
				}
			}
		}
	}
}

// BenchmarkString reads the strings of an entity like the benchmark
// workload's (names and short values, a 120-byte and a 600-byte text).
func BenchmarkString(b *testing.B) {
	var data []byte
	data = append(data, '[')
	for i, n := range []int{12, 3, 6, 8, 10, 3, 15, 8, 5, 4, 16, 7, 15, 28, 3, 36, 7, 120, 11, 600, 10, 58} {
		if i > 0 {
			data = append(data, ',')
		}
		data = append(data, '"')
		data = append(data, bytes.Repeat([]byte("abc def "), n/8+1)[:n]...)
		data = append(data, '"')
	}
	data = append(data, ']')
	b.SetBytes(int64(len(data)))
	var s Scanner
	read := func() error {
		_, err := s.String()
		return err
	}
	for b.Loop() {
		s.Reset(data)
		if err := s.Array(read); err != nil {
			b.Fatal(err)
		}
	}
}
