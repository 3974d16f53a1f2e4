package main

import (
	"math/rand/v2"
	"testing"
)

func TestParseShare(t *testing.T) {
	tests := []struct {
		in   string
		want share
		ok   bool
	}{
		{"", share{1, 1}, true},
		{"1/1", share{1, 1}, true},
		{"3/8", share{3, 8}, true},
		{"0/4", share{}, false},
		{"5/4", share{}, false},
		{"1/0", share{}, false},
		{"1", share{}, false},
		{"a/b", share{}, false},
	}
	for _, tt := range tests {
		got, err := parseShare(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseShare(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// randomKey makes keys of every shape the split must survive: empty, short,
// long, inside and outside the key character set, and right at the bounds.
func randomKey(r *rand.Rand, chars string) string {
	const other = " !$%&()*+,-.:;<=>@[]^_`{|}~\u00e9\u4e2d"
	n := r.IntN(8)
	b := make([]rune, 0, n)
	for range n {
		switch r.IntN(10) {
		case 0:
			o := []rune(other)
			b = append(b, o[r.IntN(len(o))])
		default:
			b = append(b, rune(chars[r.IntN(len(chars))]))
		}
	}
	return string(b)
}

func TestSplitCoversExactlyOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, set := range []string{"alnum", "hex", "digits", "printable"} {
		chars, err := keyChars(set)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 7, 100} {
			for _, parts := range []int{1, 13} {
				var all []keyRange
				for i := 1; i <= n; i++ {
					whole, err := splitRanges(chars, share{i, n}, 1)
					if err != nil {
						t.Fatal(err)
					}
					rs, err := splitRanges(chars, share{i, n}, parts)
					if err != nil {
						t.Fatal(err)
					}
					// The parts of a share are exactly the share.
					for k := 0; k < 200; k++ {
						key := randomKey(r, chars)
						in := 0
						for _, x := range rs {
							if x.contains(key) {
								in++
							}
						}
						if want := b2i(whole[0].contains(key)); in != want {
							t.Fatalf("%s n=%d share %d parts=%d key %q: in %d parts, want %d", set, n, i, parts, key, in, want)
						}
					}
					all = append(all, rs...)
				}
				for k := 0; k < 3000; k++ {
					key := randomKey(r, chars)
					if k%50 == 0 && len(all) > 1 { // exactly at a bound
						key = all[1+r.IntN(len(all)-1)].Lo
					}
					got := 0
					for _, x := range all {
						if x.contains(key) {
							got++
						}
					}
					if got != 1 {
						t.Fatalf("%s n=%d parts=%d: key %q in %d ranges, want 1", set, n, parts, key, got)
					}
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestSplitBalanced(t *testing.T) {
	chars, _ := keyChars("hex")
	r := rand.New(rand.NewPCG(3, 4))
	const n, keys = 4, 40000
	counts := make([]int, n)
	ranges := make([][]keyRange, n)
	for i := range n {
		ranges[i], _ = splitRanges(chars, share{i + 1, n}, 1)
	}
	for range keys {
		k := make([]byte, 8)
		for j := range k {
			k[j] = chars[r.IntN(len(chars))]
		}
		for i := range n {
			if ranges[i][0].contains(string(k)) {
				counts[i]++
			}
		}
	}
	for i, c := range counts {
		if c < keys/n*9/10 || c > keys/n*11/10 {
			t.Errorf("share %d/%d got %d of %d uniform hex keys, want about %d", i+1, n, c, keys, keys/n)
		}
	}
}

func TestKeyChars(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"hex", "0123456789abcdef", true},
		{"zyxa", "axyz", true},
		{"aa", "", false},
		{"ab\x01", "", false},
	}
	for _, tt := range tests {
		got, err := keyChars(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("keyChars(%q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
