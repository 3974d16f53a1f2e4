package retry

// validJSON reports whether data is one JSON value, exactly as json.Valid
// does (the same grammar and whitespace, strings not checked for UTF-8,
// at most maxDepth nested arrays and objects), in a fraction of its time:
// every successful read's body is checked (brokenResponse), and
// json.Valid's state machine, a call per byte, was a third of the client
// CPU of a decoded query page.
func validJSON(data []byte) bool {
	v := validator{data: data}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.pos == len(data)
}

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

type validator struct {
	data []byte
	pos  int
}

// plain marks the bytes a string holds as they are: not its quote, not an
// escape, not a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (v *validator) peek() byte {
	if v.pos < len(v.data) {
		return v.data[v.pos]
	}
	return 0
}

func (v *validator) space() {
	for v.pos < len(v.data) {
		switch v.data[v.pos] {
		case ' ', '\t', '\n', '\r':
			v.pos++
		default:
			return
		}
	}
}

// value checks the value at pos, inside depth arrays and objects.
func (v *validator) value(depth int) bool {
	switch c := v.peek(); {
	case c == '{':
		return depth < maxDepth && v.object(depth+1)
	case c == '[':
		return depth < maxDepth && v.array(depth+1)
	case c == '"':
		return v.str()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return v.number()
	}
	return false
}

func (v *validator) object(depth int) bool {
	v.pos++ // {
	v.space()
	if v.peek() == '}' {
		v.pos++
		return true
	}
	for {
		if v.peek() != '"' || !v.str() {
			return false
		}
		v.space()
		if v.peek() != ':' {
			return false
		}
		v.pos++
		v.space()
		if !v.value(depth) {
			return false
		}
		v.space()
		switch v.peek() {
		case ',':
			v.pos++
			v.space()
		case '}':
			v.pos++
			return true
		default:
			return false
		}
	}
}

func (v *validator) array(depth int) bool {
	v.pos++ // [
	v.space()
	if v.peek() == ']' {
		v.pos++
		return true
	}
	for {
		if !v.value(depth) {
			return false
		}
		v.space()
		switch v.peek() {
		case ',':
			v.pos++
			v.space()
		case ']':
			v.pos++
			return true
		default:
			return false
		}
	}
}

func (v *validator) str() bool {
	d := v.data
	i := v.pos + 1 // "
	for {
		for i < len(d) && plain[d[i]] {
			i++
		}
		if i >= len(d) {
			return false
		}
		switch d[i] {
		case '"':
			v.pos = i + 1
			return true
		case '\\':
			if i+1 >= len(d) {
				return false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !hex(d[i+2]) || !hex(d[i+3]) || !hex(d[i+4]) || !hex(d[i+5]) {
					return false
				}
				i += 6
			default:
				return false
			}
		default: // a control character
			return false
		}
	}
}

func hex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (v *validator) literal(lit string) bool {
	if len(v.data)-v.pos < len(lit) || string(v.data[v.pos:v.pos+len(lit)]) != lit {
		return false
	}
	v.pos += len(lit)
	return true
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (v *validator) number() bool {
	if v.peek() == '-' {
		v.pos++
	}
	switch c := v.peek(); {
	case c == '0':
		v.pos++
	case '1' <= c && c <= '9':
		v.digits()
	default:
		return false
	}
	if v.peek() == '.' {
		v.pos++
		if !v.digits() {
			return false
		}
	}
	if c := v.peek(); c == 'e' || c == 'E' {
		v.pos++
		if c := v.peek(); c == '+' || c == '-' {
			v.pos++
		}
		if !v.digits() {
			return false
		}
	}
	return true
}

// digits skips [0-9]* and reports whether there was one.
func (v *validator) digits() bool {
	start := v.pos
	for v.pos < len(v.data) && '0' <= v.data[v.pos] && v.data[v.pos] <= '9' {
		v.pos++
	}
	return v.pos > start
}
