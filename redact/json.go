package redact

// maxJSONDepth is the nesting encoding/json accepts (its scanner's
// maxNestingDepth): a deeper document is not valid to json.Valid.
const maxJSONDepth = 10000

// scanJSON reports whether body is valid JSON exactly as json.Valid
// decides, reading it once, and calls str for each of its strings, keys
// and values, in order: the content is body[from:end] (the quotation
// marks excluded), escaped whether it holds a backslash escape. str may
// have been called for the strings before the error in an invalid body.
func scanJSON(body []byte, str func(from, end int, escaped bool)) bool {
	var stackBuf [32]byte
	stack := stackBuf[:0] // '{' or '[' per open container
	i := skipSpace(body, 0)
	for {
		// A value starts at i.
		if i >= len(body) {
			return false
		}
		switch c := body[i]; {
		case c == '{' || c == '[':
			if stack = append(stack, c); len(stack) > maxJSONDepth {
				return false
			}
			i = skipSpace(body, i+1)
			if i < len(body) && body[i] == c+2 { // '}' or ']': empty
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				var ok bool
				if i, ok = scanKey(body, i, str); !ok {
					return false
				}
			}
			continue
		case c == '"':
			end, escaped, ok := scanString(body, i+1)
			if !ok {
				return false
			}
			str(i+1, end, escaped)
			i = end + 1
		case c == '-' || c >= '0' && c <= '9':
			var ok bool
			if i, ok = scanNumber(body, i); !ok {
				return false
			}
		case c == 't':
			if !hasLiteral(body, i, "true") {
				return false
			}
			i += 4
		case c == 'f':
			if !hasLiteral(body, i, "false") {
				return false
			}
			i += 5
		case c == 'n':
			if !hasLiteral(body, i, "null") {
				return false
			}
			i += 4
		default:
			return false
		}
		// A value ended at i: close containers, or go on to the next value.
		for {
			i = skipSpace(body, i)
			if len(stack) == 0 {
				return i == len(body)
			}
			if i >= len(body) {
				return false
			}
			top := stack[len(stack)-1]
			if c := body[i]; c == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			} else if c != ',' {
				return false
			}
			i = skipSpace(body, i+1)
			if top == '{' {
				var ok bool
				if i, ok = scanKey(body, i, str); !ok {
					return false
				}
			}
			break
		}
	}
}

// scanKey reads an object's key at i (a string, then ':'), calling str
// for it, and returns where its value starts.
func scanKey(body []byte, i int, str func(from, end int, escaped bool)) (int, bool) {
	if i >= len(body) || body[i] != '"' {
		return i, false
	}
	end, escaped, ok := scanString(body, i+1)
	if !ok {
		return i, false
	}
	str(i+1, end, escaped)
	i = skipSpace(body, end+1)
	if i >= len(body) || body[i] != ':' {
		return i, false
	}
	return skipSpace(body, i+1), true
}

// scanString reads a string's content from i, after its opening
// quotation mark: no control character, valid escapes. It returns the
// index of the closing mark.
func scanString(body []byte, i int) (end int, escaped, ok bool) {
	for ; i < len(body); i++ {
		switch c := body[i]; {
		case c == '"':
			return i, escaped, true
		case c < 0x20:
			return i, escaped, false
		case c == '\\':
			escaped = true
			i++
			if i >= len(body) {
				return i, escaped, false
			}
			switch body[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(body) {
					return i, escaped, false
				}
				for k := 1; k <= 4; k++ {
					if !isHex(body[i+k]) {
						return i, escaped, false
					}
				}
				i += 4
			default:
				return i, escaped, false
			}
		}
	}
	return i, escaped, false
}

// scanNumber reads a number at i (RFC 8259 §6) and returns where it ends.
func scanNumber(body []byte, i int) (int, bool) {
	if body[i] == '-' {
		i++
	}
	switch {
	case i < len(body) && body[i] == '0':
		i++
	case i < len(body) && body[i] >= '1' && body[i] <= '9':
		i = digits(body, i)
	default:
		return i, false
	}
	if i < len(body) && body[i] == '.' {
		if j := digits(body, i+1); j > i+1 {
			i = j
		} else {
			return i, false
		}
	}
	if i < len(body) && (body[i] == 'e' || body[i] == 'E') {
		i++
		if i < len(body) && (body[i] == '+' || body[i] == '-') {
			i++
		}
		if j := digits(body, i); j > i {
			i = j
		} else {
			return i, false
		}
	}
	return i, true
}

func digits(body []byte, i int) int {
	for i < len(body) && body[i] >= '0' && body[i] <= '9' {
		i++
	}
	return i
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }

func hasLiteral(body []byte, i int, lit string) bool {
	return len(body)-i >= len(lit) && string(body[i:i+len(lit)]) == lit
}

// skipSpace returns the index of the first byte from i that is not JSON
// white space.
func skipSpace(body []byte, i int) int {
	for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r') {
		i++
	}
	return i
}
