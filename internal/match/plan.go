package match

import (
	"math"
	"math/bits"
	"unsafe"
)

// A Plan is what deciding a path reads of a group of one run whose rules
// Flat lets match rule by rule: where the run's rules and the text of
// their patterns are, the options that deciding needs, and the rules that
// can match a path, best first, with the second byte of each. Its zero
// value (OK false) is no plan. A decision reads its first 40 bytes, and
// the rule of each index it tries: one or two cache lines, next to each
// other. Package policy keeps one in each Group of one group of the file,
// first, so that a decision reads the Group's first bytes.
type Plan struct {
	rules  unsafe.Pointer // &Set.Rules[lo]; nil when the run has none
	text   unsafe.Pointer // Set.Text; nil when it is empty
	lo     uint32         // the index of the first rule in Set.Rules
	nrules uint32         // len(Set.Rules), for FirstMatch priorities
	n      uint8          // rules in idx: those of the run but empty ones
	enc    uint8          // the caller's (see NewPlan)
	bits   planBits
	// seconds holds the second byte of the rule idx[k] in byte k%8 of
	// seconds[k/8], and 0xff past the last rule.
	seconds [(FlatMax + 7) / 8]uint64
	idx     [FlatMax]uint8 // the rules best first, as indices from lo
}

type planBits uint8

const (
	planOK           planBits = 1 << iota // the Plan is one
	planFirstMatch                        // Options.FirstMatch
	planRobotsTxtAll                      // Options.RobotsTxtAllowed
)

// NewPlan returns the Plan of the rules of s in run, which Flat must
// allow. enc is the caller's, kept where a decision reads (package policy
// keeps how paths are normalised): Enc returns it.
func NewPlan(s Set, run Run, enc uint8) Plan {
	lo, hi := run.Lo, run.Hi
	f := Plan{lo: lo, nrules: uint32(len(s.Rules)), enc: enc, bits: planOK}
	if hi > lo {
		f.rules = unsafe.Pointer(&s.Rules[lo])
	}
	if len(s.Text) > 0 {
		f.text = unsafe.Pointer(unsafe.StringData(s.Text))
	}
	if s.Opts.FirstMatch {
		f.bits |= planFirstMatch
	}
	if s.Opts.RobotsTxtAllowed {
		f.bits |= planRobotsTxtAll
	}
	// The ranks of the rules, best (greatest) first, by insertion: there
	// are at most FlatMax.
	all := s.Rules
	var refs [FlatMax]Ref
	for j := lo; j < hi; j++ {
		if all[j].kind == kindEmpty {
			continue // an empty pattern matches nothing
		}
		ref, k := all[j].rank(int32(j), s.Opts.FirstMatch, f.nrules), f.n
		for ; k > 0 && refs[k-1] < ref; k-- {
			refs[k] = refs[k-1]
		}
		refs[k] = ref
		f.n++
	}
	for w := range f.seconds {
		f.seconds[w] = math.MaxUint64
	}
	for k, ref := range refs[:f.n] {
		f.idx[k] = uint8(uint32(ref.Idx()) - lo)
		f.seconds[k/8] ^= uint64(0xff^all[ref.Idx()].second) << (8 * (k % 8))
	}
	return f
}

// OK reports whether f is a Plan, not the zero value.
func (f *Plan) OK() bool { return f.bits&planOK != 0 }

// Enc returns the enc of NewPlan.
func (f *Plan) Enc() uint8 { return f.enc }

// RobotsTxtAllowed reports whether /robots.txt is always allowed
// (Options.RobotsTxtAllowed): the caller tests it before Match.
func (f *Plan) RobotsTxtAllowed() bool { return f.bits&planRobotsTxtAll != 0 }

// Len returns the number of rules the plan tries: those of its run but
// the empty ones.
func (f *Plan) Len() int { return int(f.n) }

// Match returns the rule that decides path, or NoRule: the first rule of
// idx that matches it.
//
// A rule whose first two bytes are literal (or one and the anchor) cannot
// match a path whose second byte differs: a test that rules out most rules
// without reading them, eight at once. A path shorter than two bytes can
// only match such a rule when its second byte is the anchor ("/$"). The
// rules tried are those whose second byte is 0 (any) or path's.
func (f *Plan) Match(path string) Ref {
	second := byte('$')
	if len(path) > 1 {
		second = path[1]
	}
	want := uint64(second) * lsb8
	for w, x := range f.seconds[:(f.n+7)/8] {
		for cand := zeroBytes(x) | zeroBytes(x^want); cand != 0; cand &= cand - 1 {
			k := w*8 + bits.TrailingZeros64(cand)/8
			if k >= int(f.n) {
				return NoRule // 0xff past the last rule, and path's second byte
			}
			// The rule and its pattern (not empty), without the checks
			// of slicing: both are a rule's of the run.
			i := f.idx[k]
			rl := (*Rule)(unsafe.Add(f.rules, uintptr(i)*unsafe.Sizeof(Rule{})))
			if rl.matches(unsafe.String((*byte)(unsafe.Add(f.text, rl.pattern.off)), rl.pattern.n), path) {
				return rl.rank(int32(f.lo)+int32(i), f.bits&planFirstMatch != 0, f.nrules)
			}
		}
	}
	return NoRule
}

// zeroBytes returns x with the high bit of each of its zero bytes set, and
// no other bit.
func zeroBytes(x uint64) uint64 {
	return ^((x&low7 + low7) | x) & (lsb8 << 7)
}

// lsb8 has the low bit of each byte set, low7 the seven low bits.
const (
	lsb8 = 0x0101010101010101
	low7 = 0x7f * lsb8
)
