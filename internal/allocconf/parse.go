package allocconf

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one thing wrong with a config value.
type Problem struct {
	// Key is the canonical option name the problem is about ("" for a syntax problem
	// that belongs to no option).
	Key string
	// Offset and End are the byte range in the value (End exclusive).
	Offset, End int
	Message     string
	// Rule is "CL011" (PyTorch rejects or misreads it) or "CL012" (valid, no effect).
	Rule string
	// Versions are the PyTorch releases the problem applies to: "all", "<=2.9",
	// ">=2.10", "2.10-2.11", or several such ranges joined by ", ".
	Versions string
}

// Text is the message with the versions it applies to, for a diagnostic.
func (p Problem) Text() string {
	if p.Versions == "all" || p.Versions == "" {
		return p.Message
	}
	return p.Message + " (PyTorch " + p.Versions + ")"
}

// Setting is one key:value pair as written.
type Setting struct {
	// Key is the canonical name (aliases folded: release_lock_on_hipmalloc is
	// release_lock_on_cudamalloc); Written is the key as spelt in the value.
	Key, Written      string
	KeyOffset, KeyEnd int
	Value             string // the value's text; for a list, the text between the brackets
	ValOffset, ValEnd int    // the value's byte range, brackets included for a list
	Unknown           bool   // the value (or part of it) is not a literal
	Known             bool   // the key is an option of at least one modelled release
}

// Config is a parsed allocator config value.
type Config struct {
	// Settings in the order written; a key may appear more than once (the later wins).
	Settings []Setting
	// Holes reports that part of the value was not a literal, so some options may be
	// unknown to cachelint.
	Holes bool
}

// Get returns the setting that takes effect for key (the last one written).
func (c *Config) Get(key string) (Setting, bool) {
	if k, ok := LookupKey(key); ok {
		key = k.Name
	}
	for i := len(c.Settings) - 1; i >= 0; i-- {
		if c.Settings[i].Key == key {
			return c.Settings[i], true
		}
	}
	return Setting{}, false
}

// HasGCThreshold reports whether garbage_collection_threshold is set.
func (c *Config) HasGCThreshold() bool {
	_, ok := c.Get("garbage_collection_threshold")
	return ok
}

// SetsMemoryFraction reports whether the value itself sets a per-process memory fraction
// below 1 (per_process_memory_fraction, PyTorch >= 2.10). A non-literal value counts:
// cachelint cannot tell, and staying silent is the safe side.
func (c *Config) SetsMemoryFraction() bool {
	s, ok := c.Get("per_process_memory_fraction")
	if !ok {
		return false
	}
	if s.Unknown {
		return true
	}
	d := parseCDouble(s.Value)
	return d.ok && d.val < 1
}

// Backend returns the backend the value selects ("native" when it selects none).
func (c *Config) Backend() string {
	if s, ok := c.Get("backend"); ok && !s.Unknown {
		return s.Value
	}
	return "native"
}

// NeedsMemoryFraction reports the garbage_collection_threshold setting (key and byte
// offset) when it only acts if the program also sets a per-process memory fraction,
// i.e. the value itself sets none. The CL012 analyzer checks the program for
// torch.cuda.set_per_process_memory_fraction and, when absent, reports ProgramProblems.
func (c *Config) NeedsMemoryFraction() (key string, off int, ok bool) {
	s, has := c.Get("garbage_collection_threshold")
	if !has || c.SetsMemoryFraction() || isAsync(c.Backend()) {
		return "", 0, false
	}
	return s.Key, s.KeyOffset, true
}

// ProgramContext is what the analyzer found in the program around the setting.
type ProgramContext struct {
	// SetsMemoryFraction: the program calls torch.cuda.set_per_process_memory_fraction
	// (any alias) with a value that may be below 1.
	SetsMemoryFraction bool
}

// ProgramProblems returns the CL012 findings that depend on the rest of the program.
//
// garbage_collection_threshold: DeviceCachingAllocator::malloc in
// c10/cuda/CUDACachingAllocator.cpp runs garbage_collect_cached_blocks only under
// `set_fraction && garbage_collection_threshold() > 0.0` (<=2.11; set_fraction is set by
// setMemoryFraction) or `allowed_memory_maximum.has_value() && ...` (newer;
// setMemoryFraction sets it only for a fraction below 1). Without a fraction the
// threshold is parsed and never consulted.
func (c *Config) ProgramProblems(ctx ProgramContext) []Problem {
	key, _, ok := c.NeedsMemoryFraction()
	if !ok || ctx.SetsMemoryFraction {
		return nil
	}
	s, _ := c.Get(key)
	return []Problem{{
		Key: key, Offset: s.KeyOffset, End: s.ValEnd, Rule: "CL012", Versions: "all",
		Message: fmt.Sprintf("garbage_collection_threshold:%s has no effect: the caching allocator only runs this garbage collection when a per-process memory fraction is set; call torch.cuda.set_per_process_memory_fraction (or set per_process_memory_fraction below 1 on PyTorch >= 2.10)", s.Value),
	}}
}

// Segment is one piece of a config value as written in source: literal text, or a hole
// (an f-string replacement field, a non-literal operand of +) whose runtime text is
// unknown. Give a hole the source text it stands for, so offsets stay aligned with the
// source; its content is never interpreted.
type Segment struct {
	Text string
	Hole bool
}

// Parse tokenizes and validates a literal allocator config value the way each modelled
// PyTorch release does, and returns the settings (as the newest release reads them) and
// every problem, each marked with the releases it applies to.
func Parse(value string) (*Config, []Problem) {
	return ParseSegments([]Segment{{Text: value}})
}

// ParseSegments is Parse for a value assembled from literal parts and holes (f-strings,
// concatenations). Options whose key or value touch a hole are not judged.
func ParseSegments(segs []Segment) (*Config, []Problem) {
	var text strings.Builder
	var hole []bool
	anyHole := false
	for _, s := range segs {
		text.WriteString(s.Text)
		for range len(s.Text) {
			hole = append(hole, s.Hole)
		}
		anyHole = anyHole || s.Hole
	}
	if !anyHole {
		hole = nil
	}
	value := text.String()

	type merged struct {
		p  Problem
		in []bool
	}
	var order []string
	byKey := map[string]*merged{}
	var cfg *Config
	for i, prof := range Profiles {
		c, probs := check(value, hole, prof)
		cfg = c // the newest profile's reading wins
		for _, p := range probs {
			k := fmt.Sprintf("%s|%s|%d|%d|%s", p.Rule, p.Key, p.Offset, p.End, p.Message)
			m, ok := byKey[k]
			if !ok {
				m = &merged{p: p, in: make([]bool, len(Profiles))}
				byKey[k] = m
				order = append(order, k)
			}
			m.in[i] = true
		}
	}
	cfg.Holes = anyHole
	out := make([]Problem, 0, len(order))
	for _, k := range order {
		m := byKey[k]
		m.p.Versions = joinProfiles(m.in)
		out = append(out, m.p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return cfg, out
}

const raises = "PyTorch raises an error when CUDA is first initialised"

// checker walks the tokens of one value for one profile.
type checker struct {
	value string
	holes bool
	prof  Profile
	toks  []token
	cfg   *Config
	probs []Problem
}

func (c *checker) add(rule, key string, start, end int, format string, args ...any) {
	c.probs = append(c.probs, Problem{Key: key, Offset: start, End: end, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// skipToComma returns the index after the next top-level ',' at or after i.
func (c *checker) skipToComma(i int) int {
	depth := 0
	for ; i < len(c.toks); i++ {
		switch c.toks[i].kind {
		case tokOpen:
			depth++
		case tokClose:
			if depth > 0 {
				depth--
			}
		case tokComma:
			if depth == 0 {
				return i + 1
			}
		}
	}
	return i
}

func check(value string, hole []bool, prof Profile) (*Config, []Problem) {
	c := &checker{value: value, holes: hole != nil, prof: prof, toks: tokenize(value, hole, prof.Legacy), cfg: &Config{}}
	toks := c.toks
	for i := 0; i < len(toks); {
		t := toks[i]
		if t.hole {
			i = c.skipToComma(i)
			continue
		}
		if t.kind != tokWord {
			if t.kind == tokComma {
				c.add("CL011", "", t.start, t.end, "empty option (a stray ','); PyTorch reads ',' as an option name and raises an error when CUDA is first initialised")
			} else {
				c.add("CL011", "", t.start, t.end, "unexpected %q where an option name should be; %s", t.text, raises)
			}
			i = c.skipToComma(i + 1)
			continue
		}
		if i+1 >= len(toks) || toks[i+1].kind != tokColon {
			if k, v, ok := strings.Cut(t.text, "="); ok && canonical(k) != "" {
				c.add("CL011", canonical(k), t.start, t.end, "write %s:%s: the allocator config separates a key from its value with ':', not '='; %s", k, v, raises)
			} else {
				c.add("CL011", canonical(t.text), t.start, t.end, "option %q has no value: write %s:<value>; %s", t.text, t.text, raises)
			}
			i = c.skipToComma(i + 1)
			continue
		}
		colon := toks[i+1]
		var val []token // a single word, or the tokens between '[' and ']'
		isList := false
		var valStart, valEnd int
		j := i + 2
		switch {
		case j < len(toks) && toks[j].kind == tokWord:
			val = toks[j : j+1]
			valStart, valEnd = toks[j].start, toks[j].end
			j++
		case j < len(toks) && toks[j].kind == tokOpen:
			isList = true
			k := j + 1
			for k < len(toks) && toks[k].kind != tokClose {
				k++
			}
			if k >= len(toks) {
				c.add("CL011", canonical(t.text), toks[j].start, toks[len(toks)-1].end, "list value of %q has no closing ']'; %s", t.text, raises)
				return c.cfg, c.probs
			}
			val = toks[j+1 : k]
			valStart, valEnd = toks[j].start, toks[k].end
			j = k + 1
		default:
			c.add("CL011", canonical(t.text), t.start, colon.end, "option %q has no value after ':'; %s", t.text, raises)
			i = c.skipToComma(i + 2)
			continue
		}
		next := j
		if j < len(toks) {
			if toks[j].kind == tokComma {
				next = j + 1
			} else {
				c.add("CL011", "", toks[j].start, toks[j].end, "expected ',' between options, found %q; %s", toks[j].text, raises)
				next = c.skipToComma(j)
			}
		}
		c.option(value, t, val, isList, valStart, valEnd)
		i = next
	}
	c.afterAll()
	return c.cfg, c.probs
}

func canonical(name string) string {
	if k, ok := LookupKey(name); ok {
		return k.Name
	}
	return ""
}

func isAsync(backend string) bool {
	return backend == "cudaMallocAsync" || backend == "hipMallocAsync"
}

// option records and judges one key:value.
func (c *checker) option(value string, key token, val []token, isList bool, valStart, valEnd int) {
	s := Setting{Written: key.text, KeyOffset: key.start, KeyEnd: key.end, ValOffset: valStart, ValEnd: valEnd}
	if isList {
		if valEnd-1 >= valStart+1 {
			s.Value = value[valStart+1 : valEnd-1]
		}
	} else {
		s.Value = val[0].text
	}
	for _, v := range val {
		s.Unknown = s.Unknown || v.hole
	}
	k, known := LookupKey(key.text)
	if known {
		s.Key, s.Known = k.Name, true
	} else {
		s.Key = key.text
	}
	c.cfg.Settings = append(c.cfg.Settings, s)

	if !known || !k.acceptedBy(c.prof) {
		c.unknownKey(key, k, known)
		return
	}
	if s.Unknown {
		return
	}
	if isList && k.Form != FormDivisions && k.Form != FormReserveByClass {
		c.add("CL011", k.Name, valStart, valEnd, "%s takes a single value, not a list; %s", k.Name, raises)
		return
	}
	if !isList && k.Form == FormReserveByClass {
		c.add("CL011", k.Name, valStart, valEnd, "%s takes a list [class:reserve,...], got %q", k.Name, s.Value)
		return
	}
	v := token{}
	if !isList {
		v = val[0]
		if strings.ContainsAny(v.text, ";=") {
			c.add("CL011", k.Name, v.start, v.end, "the value of %s is %q: separate options with ',' and keys from values with ':'; %s", k.Name, v.text, raises)
			return
		}
		if c.prof.Legacy && v.ctrlSpace {
			c.add("CL011", k.Name, v.start, v.end, "the value of %s contains a tab or newline, which these versions keep (they strip only spaces), so it reads %q; %s", k.Name, v.text, raises)
			return
		}
	}
	switch k.Form {
	case FormBool:
		c.boolValue(k, v)
	case FormMB:
		c.mbValue(k, v)
	case FormGCThreshold:
		d := c.double(k, v)
		if d.ok && !(d.val > 0 && d.val < 1) {
			c.add("CL011", k.Name, v.start, v.end, "garbage_collection_threshold must be strictly between 0 and 1, got %s; %s", v.text, raises)
		}
	case FormFraction:
		d := c.double(k, v)
		switch {
		case d.ok && !(d.val >= 0 && d.val <= 1):
			c.add("CL011", k.Name, v.start, v.end, "per_process_memory_fraction must be between 0 and 1, got %s; %s", v.text, raises)
		case d.ok && d.val == 1:
			c.add("CL012", k.Name, key.start, v.end, "per_process_memory_fraction:%s is the default: a fraction of 1 sets no limit (and does not enable garbage_collection_threshold)", v.text)
		}
	case FormDivisions:
		if isList {
			c.divisionsList(k, val, valStart, valEnd)
		} else {
			c.divisionsScalar(k, v)
		}
	case FormBackend:
		c.backendValue(k, v)
	case FormThreads:
		n, ok := c.integer(k, v)
		switch {
		case !ok:
		case !isPowerOf2(n):
			c.add("CL011", k.Name, v.start, v.end, "pinned_num_register_threads must be a power of two, got %s; %s", v.text, raises)
		case n > 128:
			c.add("CL011", k.Name, v.start, v.end, "pinned_num_register_threads must be at most 128 (pinned_max_register_threads), got %s; %s", v.text, raises)
		}
	case FormPositiveInt:
		if n, ok := c.integer(k, v); ok && n == 0 {
			c.add("CL011", k.Name, v.start, v.end, "%s must be greater than 0; %s", k.Name, raises)
		}
	case FormReserve:
		c.reserveValue(k, v)
	case FormReserveByClass:
		c.reserveList(k, val)
	}
}

// unknownKey explains a key this profile rejects.
func (c *checker) unknownKey(key token, k Key, known bool) {
	if known {
		c.add("CL011", k.Name, key.start, key.end, "%s is not an allocator option before PyTorch 2.%d; %s", key.text, k.Since, raises)
		return
	}
	if c.prof.Legacy && key.ctrlSpace {
		if s := stripCSpace(key.text); canonical(s) != "" {
			c.add("CL011", canonical(s), key.start, key.end, "option name %q contains a tab or newline, which these versions keep (they strip only spaces), so %q is an unknown option; %s", s, key.text, raises)
			return
		}
	}
	msg := fmt.Sprintf("unknown allocator option %q", key.text)
	if s := suggest(key.text, c.prof); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	c.add("CL011", "", key.start, key.end, "%s; %s", msg, raises)
}

func (c *checker) boolValue(k Key, v token) {
	if v.text == "True" || v.text == "False" {
		if k.Name == "expandable_segments" && v.text == "False" {
			c.add("CL012", k.Name, v.start, v.end, "expandable_segments:False is the default and changes nothing (drop it, or use True to fight fragmentation)")
		}
		return
	}
	hint := ""
	switch strings.ToLower(v.text) {
	case "true", "1", "yes", "on":
		hint = " (write True)"
	case "false", "0", "no", "off":
		hint = " (write False)"
	}
	c.add("CL011", k.Name, v.start, v.end, "%s takes True or False exactly, case-sensitive; %q is rejected%s; %s", k.Name, v.text, hint, raises)
}

// integer reads an integer value the way this profile's parser does (std::stoi on
// <=2.9, std::stoull on >=2.10) and reports what it misreads. ok is false when the
// value is rejected outright.
func (c *checker) integer(k Key, v token) (uint64, bool) {
	n := parseCInt(v.text)
	switch {
	case !n.digits:
		c.add("CL011", k.Name, v.start, v.end, "%s expects an integer, got %q; %s", k.Name, v.text, raises)
		return 0, false
	case c.prof.Legacy && n.over32(), !c.prof.Legacy && n.over64:
		c.add("CL011", k.Name, v.start, v.end, "%s value %s is too large for PyTorch's integer parser; %s", k.Name, v.text, raises)
		return 0, false
	case n.neg && n.mag != 0:
		c.add("CL011", k.Name, v.start, v.end, "%s value %s is negative: PyTorch converts it to an unsigned size, so it wraps around to an enormous number", k.Name, v.text)
		return 0, false
	case n.rest != "":
		c.add("CL011", k.Name, v.start, v.end, "PyTorch reads only the leading integer of %q (%d) and silently ignores %q; write %d", v.text, n.mag, n.rest, n.mag)
	}
	return n.mag, true
}

func (c *checker) double(k Key, v token) cDouble {
	d := parseCDouble(v.text)
	switch {
	case !d.ok:
		c.add("CL011", k.Name, v.start, v.end, "%s expects a number, got %q; %s", k.Name, v.text, raises)
	case d.rest != "":
		c.add("CL011", k.Name, v.start, v.end, "PyTorch reads only the leading number of %q (%g) and silently ignores %q", v.text, d.val, d.rest)
	}
	return d
}

// mbValue checks max_split_size_mb and max_non_split_rounding_mb. The bound is
// kLargeBuffer (20 MiB): the legacy parsers require val > 20, the AcceleratorAllocatorConfig
// ones val >= 20. Units are MiB (val * 1024 * 1024).
func (c *checker) mbValue(k Key, v token) {
	n, ok := c.integer(k, v)
	if !ok {
		return
	}
	switch {
	case n < 20:
		c.add("CL011", k.Name, v.start, v.end, "%s:%d is below the minimum of 20 MiB (one large-block buffer); %s", k.Name, n, raises)
	case n == 20 && c.prof.Legacy:
		c.add("CL011", k.Name, v.start, v.end, "%s:20 is rejected: these versions require more than 20 MiB; %s", k.Name, raises)
	}
}

func (c *checker) divisionsScalar(k Key, v token) {
	n, ok := c.integer(k, v)
	if ok && !isPowerOf2(n) {
		hint := ""
		if n == 0 {
			hint = " (0 is rejected here; rounding is already off by default, or use the list form [>:0])"
		}
		c.add("CL011", k.Name, v.start, v.end, "roundup_power2_divisions must be a power of two, got %s%s; %s", v.text, hint, raises)
	}
}

// divisionsList checks [interval:divisions,...,>:divisions]. Intervals are MiB, a power of
// two each, and map to bucket log2(interval) clamped to the 16 buckets from 1 MiB to
// 64 GiB; '>' fills every bucket after the previous entry.
func (c *checker) divisionsList(k Key, toks []token, start, end int) {
	if len(toks) == 0 {
		c.add("CL012", k.Name, start, end, "roundup_power2_divisions:[] is an empty list and changes nothing")
		return
	}
	type entry struct {
		from, to int
		bucket   int
		label    string
	}
	var seen []entry
	lastExplicit := -1
	for i := 0; i < len(toks); {
		iv := toks[i]
		if iv.kind != tokWord || i+2 >= len(toks) || toks[i+1].kind != tokColon || toks[i+2].kind != tokWord {
			last := i
			for last+1 < len(toks) && toks[last+1].kind != tokComma {
				last++
			}
			c.add("CL011", k.Name, iv.start, toks[last].end, "roundup_power2_divisions entries are interval:divisions (e.g. 256:4 or >:8); %s", raises)
			return
		}
		dv := toks[i+2]
		i += 3
		if i < len(toks) {
			if toks[i].kind != tokComma {
				c.add("CL011", k.Name, toks[i].start, toks[i].end, "expected ',' between roundup_power2_divisions entries, found %q; %s", toks[i].text, raises)
				return
			}
			i++
		}
		d, ok := c.integer(k, dv)
		if ok && d != 0 && !isPowerOf2(d) {
			c.add("CL011", k.Name, dv.start, dv.end, "roundup_power2_divisions divisions must be 0 or a power of two, got %s; %s", dv.text, raises)
		}
		if iv.text == ">" {
			if c.prof.Legacy && lastExplicit >= 0 {
				e := seen[lastExplicit]
				c.add("CL012", k.Name, e.from, e.to, "this entry is overwritten by the later '>:%s': in these versions the '>' fill starts at the previous interval instead of after it", dv.text)
			}
			continue
		}
		n := parseCInt(iv.text)
		if !n.digits || n.neg || n.rest != "" || !isPowerOf2(n.mag) {
			c.add("CL011", k.Name, iv.start, iv.end, "roundup_power2_divisions intervals must be a power of two in MiB (or '>'), got %q; %s", iv.text, raises)
			continue
		}
		b := min(log2(n.mag), 15)
		for _, e := range seen {
			if e.bucket == b {
				c.add("CL012", k.Name, e.from, e.to, "interval %s is set again by %s:%s later in the list, which wins", e.label, iv.text, dv.text)
			}
		}
		seen = append(seen, entry{from: iv.start, to: dv.end, bucket: b, label: iv.text})
		lastExplicit = len(seen) - 1
	}
}

func (c *checker) backendValue(k Key, v token) {
	switch v.text {
	case "native", "cudaMallocAsync":
		return
	case "hipMallocAsync":
		c.add("CL011", k.Name, v.start, v.end, "backend:hipMallocAsync is accepted only by ROCm builds of PyTorch; CUDA builds accept native or cudaMallocAsync and raise an error when CUDA is first initialised")
		return
	}
	hint := ""
	switch strings.ToLower(v.text) {
	case "cudamallocasync", "async", "cuda_malloc_async":
		hint = " (did you mean cudaMallocAsync?)"
	case "native", "default", "caching":
		hint = " (did you mean native?)"
	}
	c.add("CL011", k.Name, v.start, v.end, "unknown allocator backend %q%s: PyTorch accepts native or cudaMallocAsync (case-sensitive); %s", v.text, hint, raises)
}

// validReserve mirrors CUDAAllocatorConfig::parseReserveSpec: a positive finite number,
// the whole token, with an optional trailing G or g for GiB.
func validReserve(s string) bool {
	num := strings.TrimSuffix(strings.TrimSuffix(s, "G"), "g")
	if num == "" {
		return false
	}
	d := parseCDouble(num)
	return d.ok && d.rest == "" && d.val > 0 && d.val < 1e308
}

func (c *checker) reserveValue(k Key, v token) {
	if !validReserve(v.text) {
		c.add("CL011", k.Name, v.start, v.end, "%s expects a positive fraction of device memory (0.5) or a size in GiB (40G), got %q; PyTorch warns and ignores it, keeping the default reserve", k.Name, v.text)
	}
}

func (c *checker) reserveList(k Key, toks []token) {
	for i := 0; i < len(toks); {
		if toks[i].kind != tokWord || i+2 >= len(toks) || toks[i+1].kind != tokColon || toks[i+2].kind != tokWord {
			c.add("CL011", k.Name, toks[i].start, toks[len(toks)-1].end, "%s entries are class:reserve (e.g. serving:0.5); %s", k.Name, raises)
			return
		}
		c.reserveValue(k, toks[i+2])
		i += 3
		if i < len(toks) && toks[i].kind == tokComma {
			i++
		}
	}
}

// afterAll reports what only the whole value shows: repeated keys, options the chosen
// backend ignores, options that need another option, and the legacy load-time backend
// check.
func (c *checker) afterAll() {
	settings := c.cfg.Settings
	last := map[string]int{}
	for i, s := range settings {
		if s.Known {
			last[s.Key] = i
		}
	}
	for i, s := range settings {
		k, ok := LookupKey(s.Key)
		if !ok || !k.acceptedBy(c.prof) {
			continue
		}
		// roundup_power2_divisions is not reset between two occurrences: a later list
		// only overwrites the buckets it names, so "later wins" would be wrong there.
		if j := last[s.Key]; j != i && s.Key != "roundup_power2_divisions" {
			later := settings[j]
			c.add("CL012", s.Key, s.KeyOffset, s.ValEnd, "%s is set again later (%s:%s), and the later value wins, so this one has no effect", s.Key, later.Written, later.Value)
		}
	}
	backend, hasBackend := c.cfg.Get("backend")
	if hasBackend && !backend.Unknown && isAsync(backend.Value) {
		for _, s := range settings {
			if k, ok := LookupKey(s.Key); ok && k.DeviceAllocator && k.acceptedBy(c.prof) {
				c.add("CL012", s.Key, s.KeyOffset, s.ValEnd, "%s has no effect with backend:%s: only PyTorch's native caching allocator reads it", s.Key, backend.Value)
			}
		}
	}
	for _, name := range []string{"expandable_segments_reserve", "expandable_segments_reserve_by_class"} {
		s, ok := c.cfg.Get(name)
		k, _ := LookupKey(name)
		if !ok || !k.acceptedBy(c.prof) || (hasBackend && isAsync(backend.Value)) {
			continue
		}
		if es, on := c.cfg.Get("expandable_segments"); !on || (!es.Unknown && es.Value != "True") {
			c.add("CL012", name, s.KeyOffset, s.ValEnd, "%s has no effect without expandable_segments:True: it sizes expandable segments only", name)
		}
	}
	if c.prof.Legacy && !c.holes {
		c.legacyLoadTimeBackend()
	}
}

// legacyLoadTimeBackend mirrors BackendStaticInitializer::parseEnvForBackend
// (c10/cuda/CUDACachingAllocator.cpp, <=2.9), which picks the backend when the library
// loads by splitting the raw value on regex [\s,]+ and each option on [:]+, and takes the
// first backend:native|cudaMallocAsync it sees. parseAllocatorConfig later asserts that
// every backend option it tokenizes names that same allocator, so a spelling the first
// pass misses ("backend: cudaMallocAsync") or a second backend option fails at CUDA
// initialisation with "Allocator backend parsed at runtime != allocator backend parsed
// at load time".
func (c *checker) legacyLoadTimeBackend() {
	loaded := "native"
	for _, opt := range strings.FieldsFunc(c.value, func(r rune) bool { return r == ',' || (r < 0x80 && isCSpace(byte(r))) }) {
		kv := strings.FieldsFunc(opt, func(r rune) bool { return r == ':' })
		if len(kv) >= 2 && kv[0] == "backend" && (kv[1] == "cudaMallocAsync" || kv[1] == "native") {
			loaded = kv[1]
			break
		}
	}
	for _, s := range c.cfg.Settings {
		if s.Key != "backend" || s.Unknown || (s.Value != "native" && s.Value != "cudaMallocAsync") {
			continue
		}
		if s.Value != loaded {
			c.add("CL011", "backend", s.KeyOffset, s.ValEnd, "backend:%s disagrees with the backend chosen when torch was imported (%s): the import-time check splits on whitespace and commas and takes the first backend option, so write backend:%s once, with no spaces; PyTorch fails with \"Allocator backend parsed at runtime != allocator backend parsed at load time\" when CUDA is first initialised", s.Value, loaded, s.Value)
		}
	}
}
