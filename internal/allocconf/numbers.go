package allocconf

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// cInt is what std::stoi / std::stoull make of a token: they skip leading whitespace,
// take an optional sign and the longest run of decimal digits, and ignore the rest.
type cInt struct {
	digits bool   // at least one digit was read; otherwise they throw invalid_argument
	neg    bool   // a '-' sign: stoull negates, so a size_t ends up huge
	mag    uint64 // magnitude, saturated at MaxUint64
	over64 bool   // magnitude beyond uint64: stoull throws out_of_range
	rest   string // what follows the digits and is silently ignored
}

func parseCInt(s string) cInt {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	var r cInt
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		r.neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		d := uint64(s[i] - '0')
		if r.mag > (math.MaxUint64-d)/10 {
			r.over64 = true
			r.mag = math.MaxUint64
		} else if !r.over64 {
			r.mag = r.mag*10 + d
		}
		i++
	}
	r.digits = i > start
	if r.digits {
		r.rest = s[i:]
	}
	return r
}

// over32 reports whether std::stoi (a 32-bit int) would throw out_of_range.
func (r cInt) over32() bool {
	if r.neg {
		return r.over64 || r.mag > 1<<31
	}
	return r.over64 || r.mag > math.MaxInt32
}

var (
	cFloatRE  = regexp.MustCompile(`^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?`)
	cInfNanRE = regexp.MustCompile(`^(?i)[+-]?(?:infinity|inf|nan)`)
)

// cDouble is what std::stod makes of a token: the longest prefix strtod accepts.
type cDouble struct {
	ok   bool // a number was read; otherwise stod throws invalid_argument
	val  float64
	rest string
}

func parseCDouble(s string) cDouble {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	m := cFloatRE.FindString(s)
	if m == "" {
		m = cInfNanRE.FindString(s)
	}
	if m == "" {
		return cDouble{}
	}
	v, err := strconv.ParseFloat(m, 64)
	if err != nil {
		// ParseFloat reports range errors with ±Inf or 0, which is what strtod gives too.
		if !errors.Is(err, strconv.ErrRange) {
			return cDouble{}
		}
	}
	return cDouble{ok: true, val: v, rest: s[len(m):]}
}

func isPowerOf2(v uint64) bool { return v != 0 && v&(v-1) == 0 }

func log2(v uint64) int {
	n := -1
	for v != 0 {
		v >>= 1
		n++
	}
	return n
}
