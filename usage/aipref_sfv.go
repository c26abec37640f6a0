package usage

import (
	"errors"
	"unicode/utf8"
)

// A strict parser of the Structured Fields Dictionary (RFC 9651 §3.2 and
// §4.2.2), which is the syntax of a Content-Usage value. It validates every
// member, whatever its type, since a value that does not parse as a whole
// states no preference at all, but keeps only what the vocabulary reads: each
// key and, when the member is a Token, the Token. It builds no tree of
// values, does not recurse, and allocates nothing beyond the callback's own
// needs: its time is linear in the input, which callers bound.

// sfMaxMembers is the number of dictionary members accepted: RFC 9651 §3.2
// requires parsers to support at least 1024.
const sfMaxMembers = 1024

var (
	errSFKey       = errors.New("robotsguard: structured field: a key must start with a lower-case letter or '*'")
	errSFSeparator = errors.New("robotsguard: structured field: expected ',' between dictionary members")
	errSFTrailing  = errors.New("robotsguard: structured field: trailing ','")
	errSFItem      = errors.New("robotsguard: structured field: invalid item")
	errSFInteger   = errors.New("robotsguard: structured field: invalid integer or decimal")
	errSFString    = errors.New("robotsguard: structured field: invalid string")
	errSFBytes     = errors.New("robotsguard: structured field: invalid byte sequence")
	errSFBoolean   = errors.New("robotsguard: structured field: invalid boolean")
	errSFDisplay   = errors.New("robotsguard: structured field: invalid display string")
	errSFList      = errors.New("robotsguard: structured field: invalid inner list")
	errSFMembers   = errors.New("robotsguard: structured field: more than 1024 dictionary members")
)

// sfParseDictionary parses s as a Dictionary and calls member for each
// member in order, with its key and, when its value is a Token (not an
// Inner List, not a Boolean), that Token with isToken true. Parameters are
// validated and dropped. A key may come more than once: the caller keeps
// the last (RFC 9651 §4.2.2). On error, member may have been called for the
// members before the error; the caller discards them.
func sfParseDictionary(s string, member func(key, token string, isToken bool)) error {
	p := sfParser{s: s}
	p.skipSP()
	n := 0
	for !p.done() {
		if n++; n > sfMaxMembers {
			return errSFMembers
		}
		key, err := p.key()
		if err != nil {
			return err
		}
		token, isToken := "", false
		if p.peek() == '=' {
			p.i++
			if p.peek() == '(' {
				if err := p.innerList(); err != nil {
					return err
				}
			} else {
				kind, start, err := p.bareItem()
				if err != nil {
					return err
				}
				if kind == sfToken {
					token, isToken = s[start:p.i], true
				}
			}
		}
		if err := p.parameters(); err != nil {
			return err
		}
		member(key, token, isToken)
		p.skipOWS()
		if p.done() {
			return nil
		}
		if p.s[p.i] != ',' {
			return errSFSeparator
		}
		p.i++
		p.skipOWS()
		if p.done() {
			return errSFTrailing
		}
	}
	return nil
}

type sfParser struct {
	s string
	i int
}

type sfKind uint8

const (
	sfOther sfKind = iota
	sfToken
)

func (p *sfParser) done() bool { return p.i >= len(p.s) }

func (p *sfParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *sfParser) skipSP() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *sfParser) skipOWS() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func sfIsLCAlpha(c byte) bool { return 'a' <= c && c <= 'z' }
func sfIsAlpha(c byte) bool   { return sfIsLCAlpha(c) || 'A' <= c && c <= 'Z' }
func sfIsDigit(c byte) bool   { return '0' <= c && c <= '9' }

// sfIsTchar reports whether c is a tchar (RFC 9110 §5.6.2).
func sfIsTchar(c byte) bool {
	if sfIsAlpha(c) || sfIsDigit(c) {
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// key parses a key (RFC 9651 §4.2.3.3).
func (p *sfParser) key() (string, error) {
	start := p.i
	if c := p.peek(); !sfIsLCAlpha(c) && c != '*' {
		return "", errSFKey
	}
	p.i++
	for p.i < len(p.s) {
		c := p.s[p.i]
		if !sfIsLCAlpha(c) && !sfIsDigit(c) && c != '_' && c != '-' && c != '.' && c != '*' {
			break
		}
		p.i++
	}
	return p.s[start:p.i], nil
}

// parameters parses and drops parameters (RFC 9651 §4.2.3.2).
func (p *sfParser) parameters() error {
	for p.peek() == ';' {
		p.i++
		p.skipSP()
		if _, err := p.key(); err != nil {
			return err
		}
		if p.peek() == '=' {
			p.i++
			if _, _, err := p.bareItem(); err != nil {
				return err
			}
		}
	}
	return nil
}

// innerList parses an Inner List with its parameters (RFC 9651 §4.2.1.2).
func (p *sfParser) innerList() error {
	p.i++ // '('
	for !p.done() {
		p.skipSP()
		if p.peek() == ')' {
			p.i++
			return p.parameters()
		}
		if _, _, err := p.bareItem(); err != nil {
			return err
		}
		if err := p.parameters(); err != nil {
			return err
		}
		if c := p.peek(); c != ' ' && c != ')' {
			return errSFList
		}
	}
	return errSFList
}

// bareItem parses a Bare Item (RFC 9651 §4.2.3.1) and returns its kind and
// where it starts.
func (p *sfParser) bareItem() (sfKind, int, error) {
	start := p.i
	c := p.peek()
	switch {
	case c == '-' || sfIsDigit(c):
		return sfOther, start, p.number()
	case c == '"':
		return sfOther, start, p.str()
	case c == '*' || sfIsAlpha(c):
		p.i++
		for p.i < len(p.s) && (sfIsTchar(p.s[p.i]) || p.s[p.i] == ':' || p.s[p.i] == '/') {
			p.i++
		}
		return sfToken, start, nil
	case c == ':':
		return sfOther, start, p.byteSequence()
	case c == '?':
		if p.i+1 < len(p.s) && (p.s[p.i+1] == '0' || p.s[p.i+1] == '1') {
			p.i += 2
			return sfOther, start, nil
		}
		return sfOther, start, errSFBoolean
	case c == '@':
		p.i++
		isDecimal, err := p.numberValue()
		if err == nil && isDecimal {
			err = errSFInteger
		}
		return sfOther, start, err
	case c == '%':
		return sfOther, start, p.displayString()
	}
	return sfOther, start, errSFItem
}

func (p *sfParser) number() error {
	_, err := p.numberValue()
	return err
}

// numberValue parses an Integer or Decimal (RFC 9651 §4.2.4) and reports
// whether it was a Decimal.
func (p *sfParser) numberValue() (bool, error) {
	if p.peek() == '-' {
		p.i++
	}
	if !sfIsDigit(p.peek()) {
		return false, errSFInteger
	}
	digits, intDigits, decimal := 0, 0, false
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case sfIsDigit(c):
			digits++
		case c == '.' && !decimal:
			if digits > 12 {
				return false, errSFInteger
			}
			decimal, intDigits = true, digits
		default:
			goto end
		}
		p.i++
		if digits > 15 { // 15 digits, and the '.' makes 16 characters
			return false, errSFInteger
		}
	}
end:
	if decimal {
		frac := digits - intDigits
		if frac == 0 || frac > 3 {
			return false, errSFInteger
		}
	}
	return decimal, nil
}

// str parses a String (RFC 9651 §4.2.5).
func (p *sfParser) str() error {
	p.i++ // '"'
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if p.i >= len(p.s) || p.s[p.i] != '"' && p.s[p.i] != '\\' {
				return errSFString
			}
			p.i++
		case c == '"':
			return nil
		case c < 0x20 || c > 0x7e:
			return errSFString
		}
	}
	return errSFString
}

// byteSequence parses a Byte Sequence (RFC 9651 §4.2.7): base64 between
// colons. Padding is not checked, as §4.2.7 allows.
func (p *sfParser) byteSequence() error {
	p.i++ // ':'
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		if c == ':' {
			return nil
		}
		if !sfIsAlpha(c) && !sfIsDigit(c) && c != '+' && c != '/' && c != '=' {
			return errSFBytes
		}
	}
	return errSFBytes
}

// displayString parses a Display String (RFC 9651 §4.2.10): %"…" with
// lower-case percent-encoded bytes that decode to valid UTF-8.
func (p *sfParser) displayString() error {
	p.i++ // '%'
	if p.peek() != '"' {
		return errSFDisplay
	}
	p.i++
	var buf [utf8.UTFMax]byte
	n := 0 // bytes of an unfinished UTF-8 sequence in buf
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c < 0x20 || c > 0x7e:
			return errSFDisplay
		case c == '"':
			if n != 0 {
				return errSFDisplay
			}
			return nil
		case c == '%':
			if p.i+2 > len(p.s) {
				return errSFDisplay
			}
			hi, ok1 := sfLowerHex(p.s[p.i])
			lo, ok2 := sfLowerHex(p.s[p.i+1])
			if !ok1 || !ok2 {
				return errSFDisplay
			}
			p.i += 2
			b := hi<<4 | lo
			if n == 0 && b < utf8.RuneSelf {
				continue
			}
			if n == len(buf) {
				return errSFDisplay
			}
			buf[n] = b
			n++
			if utf8.FullRune(buf[:n]) {
				if r, size := utf8.DecodeRune(buf[:n]); r == utf8.RuneError && size <= 1 {
					return errSFDisplay
				}
				n = 0
			}
		default:
			if n != 0 {
				return errSFDisplay
			}
		}
	}
	return errSFDisplay
}

func sfLowerHex(c byte) (byte, bool) {
	switch {
	case sfIsDigit(c):
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
