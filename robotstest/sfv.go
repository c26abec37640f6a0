package robotstest

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// The Structured Fields (RFC 9651) the signature verifier reads: a
// Dictionary (§3.2) whose members are Items or Inner Lists, with
// Parameters, of the bare items Signature, Signature-Input and
// Signature-Agent use (Integer, String, Token, Byte Sequence, Boolean;
// a Decimal, Date or Display String fails the parse). It is written for
// the verifier alone, apart from the signer's serialization in package
// botauth, so that the two check each other. Its input is bounded by
// sfMaxLen; each list by sfMaxMembers.

const (
	sfMaxLen     = 16 << 10 // bytes of a field value
	sfMaxMembers = 64       // members of a dictionary, items of an inner list, parameters
)

var errSF = errors.New("robotstest: malformed structured field")

// sfItem is a bare item: Integer (int64), String or Token (string, with
// token set), Byte Sequence ([]byte), Boolean (bool).
type sfItem struct {
	v     any
	token bool
}

type sfParam struct {
	key string
	val sfItem
}

// sfMember is a dictionary member or an item of an inner list: an Item,
// or, with inner set, an Inner List (items) with its parameters.
type sfMember struct {
	key    string
	item   sfItem
	inner  bool
	items  []sfMember
	params []sfParam
}

// param returns the value of the parameter key, and whether there is one.
func (m sfMember) param(key string) (sfItem, bool) {
	for _, p := range m.params {
		if p.key == key {
			return p.val, true
		}
	}
	return sfItem{}, false
}

type sfParser struct {
	s string
	i int
}

// sfDictionary parses s as a Dictionary. A key given twice keeps its
// place and takes the last value (RFC 9651 §4.2.2).
func sfDictionary(s string) ([]sfMember, error) {
	if len(s) > sfMaxLen {
		return nil, errSF
	}
	p := &sfParser{s: s}
	p.sp()
	var out []sfMember
	for p.i < len(p.s) {
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		var m sfMember
		if p.i < len(p.s) && p.s[p.i] == '=' {
			p.i++
			if m, err = p.member(); err != nil {
				return nil, err
			}
		} else {
			m.item = sfItem{v: true}
			if m.params, err = p.params(); err != nil {
				return nil, err
			}
		}
		m.key = k
		dup := false
		for j := range out {
			if out[j].key == k {
				out[j], dup = m, true
			}
		}
		if !dup {
			if len(out) == sfMaxMembers {
				return nil, errSF
			}
			out = append(out, m)
		}
		p.ows()
		if p.i == len(p.s) {
			return out, nil
		}
		if p.s[p.i] != ',' {
			return nil, errSF
		}
		p.i++
		p.ows()
		if p.i == len(p.s) {
			return nil, errSF // trailing comma
		}
	}
	return out, nil
}

// sfItemField parses s as an Item (RFC 9651 §4.2.3).
func sfItemField(s string) (sfMember, error) {
	if len(s) > sfMaxLen {
		return sfMember{}, errSF
	}
	p := &sfParser{s: s}
	p.sp()
	item, err := p.bare()
	if err != nil {
		return sfMember{}, err
	}
	m := sfMember{item: item}
	if m.params, err = p.params(); err != nil {
		return sfMember{}, err
	}
	p.sp()
	if p.i != len(p.s) {
		return sfMember{}, errSF
	}
	return m, nil
}

func (p *sfParser) sp() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *sfParser) ows() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *sfParser) member() (sfMember, error) {
	var m sfMember
	var err error
	if p.i < len(p.s) && p.s[p.i] == '(' {
		p.i++
		m.inner = true
		for {
			p.sp()
			if p.i >= len(p.s) {
				return m, errSF
			}
			if p.s[p.i] == ')' {
				p.i++
				break
			}
			if len(m.items) == sfMaxMembers {
				return m, errSF
			}
			var it sfMember
			if it.item, err = p.bare(); err != nil {
				return m, err
			}
			if it.params, err = p.params(); err != nil {
				return m, err
			}
			m.items = append(m.items, it)
			if p.i < len(p.s) && p.s[p.i] != ' ' && p.s[p.i] != ')' {
				return m, errSF
			}
		}
	} else if m.item, err = p.bare(); err != nil {
		return m, err
	}
	m.params, err = p.params()
	return m, err
}

func (p *sfParser) params() ([]sfParam, error) {
	var ps []sfParam
	for p.i < len(p.s) && p.s[p.i] == ';' {
		p.i++
		p.sp()
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		v := sfItem{v: true}
		if p.i < len(p.s) && p.s[p.i] == '=' {
			p.i++
			if v, err = p.bare(); err != nil {
				return nil, err
			}
		}
		dup := false
		for j := range ps {
			if ps[j].key == k {
				ps[j].val, dup = v, true
			}
		}
		if !dup {
			if len(ps) == sfMaxMembers {
				return nil, errSF
			}
			ps = append(ps, sfParam{k, v})
		}
	}
	return ps, nil
}

func (p *sfParser) key() (string, error) {
	start := p.i
	if p.i >= len(p.s) || !(p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] == '*') {
		return "", errSF
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '*' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i], nil
}

func (p *sfParser) bare() (sfItem, error) {
	if p.i >= len(p.s) {
		return sfItem{}, errSF
	}
	switch c := p.s[p.i]; {
	case c == '-' || c >= '0' && c <= '9':
		return p.integer()
	case c == '"':
		return p.str()
	case c == ':':
		return p.bytes()
	case c == '?':
		if p.i+1 < len(p.s) && (p.s[p.i+1] == '0' || p.s[p.i+1] == '1') {
			p.i += 2
			return sfItem{v: p.s[p.i-1] == '1'}, nil
		}
		return sfItem{}, errSF
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '*':
		start := p.i
		for p.i++; p.i < len(p.s) && isTokenChar(p.s[p.i]); p.i++ {
		}
		return sfItem{v: p.s[start:p.i], token: true}, nil
	}
	return sfItem{}, errSF
}

// isTokenChar reports whether c is a tchar, ':' or '/' (RFC 9651 §3.3.4).
func isTokenChar(c byte) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~:/", c) >= 0
}

func (p *sfParser) integer() (sfItem, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	if n := p.i - digits; n == 0 || n > 15 {
		return sfItem{}, errSF
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		return sfItem{}, errSF // a Decimal: no field here has one
	}
	n, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
	if err != nil {
		return sfItem{}, errSF
	}
	return sfItem{v: n}, nil
}

func (p *sfParser) str() (sfItem, error) {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if p.i >= len(p.s) || p.s[p.i] != '"' && p.s[p.i] != '\\' {
				return sfItem{}, errSF
			}
			b.WriteByte(p.s[p.i])
			p.i++
		case c == '"':
			return sfItem{v: b.String()}, nil
		case c < 0x20 || c > 0x7e:
			return sfItem{}, errSF
		default:
			b.WriteByte(c)
		}
	}
	return sfItem{}, errSF
}

func (p *sfParser) bytes() (sfItem, error) {
	p.i++ // the opening colon
	end := strings.IndexByte(p.s[p.i:], ':')
	if end < 0 {
		return sfItem{}, errSF
	}
	enc := p.s[p.i : p.i+end]
	p.i += end + 1
	b, err := base64.StdEncoding.Strict().DecodeString(enc)
	if err != nil {
		return sfItem{}, errSF
	}
	return sfItem{v: b}, nil
}

// sfSerialize writes m's value (not its key) as RFC 9651 §4.1 serializes
// it: an Item or an Inner List, then its parameters.
func sfSerialize(b *strings.Builder, m sfMember) {
	if m.inner {
		b.WriteByte('(')
		for i, it := range m.items {
			if i > 0 {
				b.WriteByte(' ')
			}
			sfSerialize(b, it)
		}
		b.WriteByte(')')
	} else {
		sfSerializeBare(b, m.item)
	}
	for _, p := range m.params {
		b.WriteByte(';')
		b.WriteString(p.key)
		if v, ok := p.val.v.(bool); ok && v {
			continue // a true Boolean parameter is its key alone
		}
		b.WriteByte('=')
		sfSerializeBare(b, p.val)
	}
}

func sfSerializeBare(b *strings.Builder, it sfItem) {
	switch v := it.v.(type) {
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case string:
		if it.token {
			b.WriteString(v)
			return
		}
		b.WriteByte('"')
		for i := 0; i < len(v); i++ {
			if v[i] == '"' || v[i] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(v[i])
		}
		b.WriteByte('"')
	case []byte:
		b.WriteByte(':')
		b.WriteString(base64.StdEncoding.EncodeToString(v))
		b.WriteByte(':')
	case bool:
		if v {
			b.WriteString("?1")
		} else {
			b.WriteString("?0")
		}
	}
}
