package lazyregexp

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLazy: an expression is compiled on first use outside tests, answers as regexp does,
// and an invalid one panics when used, not when declared.
func TestLazy(t *testing.T) {
	inTest = false
	defer func() { inTest = true }()
	r := New(`(?i)\b(empty|clear)_cache\((\w*)\)`)
	if r.rx != nil {
		t.Fatal("compiled when declared")
	}
	want := regexp.MustCompile(r.str)
	for _, s := range []string{"torch.cuda.empty_cache()", "x.CLEAR_CACHE(dev)", "empty_cache", ""} {
		if r.MatchString(s) != want.MatchString(s) || r.Match([]byte(s)) != want.Match([]byte(s)) ||
			r.FindString(s) != want.FindString(s) || !slices.Equal(r.FindStringSubmatch(s), want.FindStringSubmatch(s)) {
			t.Errorf("%q: answers differ from regexp's", s)
		}
	}
	if r.String() != want.String() {
		t.Errorf("String = %q, want %q", r.String(), want.String())
	}
	bad := New(`(unclosed`)
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic when used")
		}
	}()
	bad.MatchString("x")
}

// TestEagerInTests: in a test binary an expression is compiled when declared.
func TestEagerInTests(t *testing.T) {
	if !inTest {
		t.Fatal("a test binary is not taken for one")
	}
	if New(`a+`).rx == nil {
		t.Error("not compiled when declared in a test binary")
	}
}

// TestAtoms: the strings every match holds, and the expressions where none are known.
func TestAtoms(t *testing.T) {
	cases := []struct {
		expr  string
		atoms []string // nil: none known
	}{
		{`(?i)(optim|opt|scaler)[\w]*\.step$`, []string{".step"}},
		{`(^|_)(get|load)_`, []string{"get", "load"}},
		{`reload_states|from_pretrained|init_\w*model`, []string{"reload_states", "from_pretrained", "init_"}},
		{`(?i)\bEMPTY_cache\b`, []string{"empty_cache"}},
		{`a?b*`, nil},
		{`x|y?`, nil},
		{`\w+`, nil},
		{`(?i)ſtep`, []string{"step"}}, // ſ folds to s: the literal is held by its ASCII fold
		{`(ab){2,}`, []string{"ab"}},
		{`(ab){0,2}c`, []string{"c"}},
	}
	for _, c := range cases {
		r := New(c.expr)
		r.re()
		if !slices.Equal(r.atoms, c.atoms) {
			t.Errorf("%s: atoms %q, want %q", c.expr, r.atoms, c.atoms)
		}
	}
}

// TestAtomsAnswerAsRegexp: with its atoms an expression answers as regexp does, for texts
// with and without them, in any case, and not ASCII.
func TestAtomsAnswerAsRegexp(t *testing.T) {
	exprs := []string{`(?i)(optim|opt|scaler)[\w]*\.step$`, `(^|_)(get|load)_`, `(?i)\bempty_cache\b`,
		`(?i)kelvin`, `(?i)stop|go`, `reload_states|init_\w*model`, `(ab){2,}`}
	texts := []string{"", "optimizer.step", "OPTIMIZER.STEP", "opt.Step", "x.step", "get_model", "_load_x", "forget_",
		"torch.cuda.EMPTY_CACHE()", "empty_cache_fn", "\u212Aelvin", "KELVIN", "ſtop", "STOP", "init_big_model", "init_x", "abab", "ab",
		strings.Repeat("x = compute(batch) ", 20) + "optimizer.step", strings.Repeat("y", 300) + "\u212Aelvin"}
	for _, e := range exprs {
		r, want := New(e), regexp.MustCompile(e)
		for _, s := range texts {
			if r.MatchString(s) != want.MatchString(s) || r.FindString(s) != want.FindString(s) ||
				!slices.Equal(r.FindStringSubmatch(s), want.FindStringSubmatch(s)) {
				t.Errorf("%s on %q: answers differ from regexp's", e, s)
			}
		}
	}
}

// FuzzAtoms: an expression answers as regexp does, whatever its atoms.
func FuzzAtoms(f *testing.F) {
	f.Add(`(?i)(optim|opt)[\w]*\.step$`, "optimizer.STEP")
	f.Add(`a(b|c)+d?`, "xacbd")
	f.Fuzz(func(t *testing.T, expr, s string) {
		want, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		r := New(expr)
		if r.MatchString(s) != want.MatchString(s) || r.FindString(s) != want.FindString(s) {
			t.Errorf("%q on %q: answers differ from regexp's", expr, s)
		}
	})
}

// TestCannotAllocates: ruling a short text out costs no allocation (the analyzers ask it of
// every call and loop they read).
func TestCannotAllocates(t *testing.T) {
	r := New(`(?i)(load|offload|unload|reload|swap|switch)_?(model|pipeline|pipe|weights|adapter|lora)`)
	r.re()
	text := "self.text_encoder.to(device, dtype=torch.float16)"
	if n := testing.AllocsPerRun(100, func() { sink = r.cannot(text) }); n != 0 {
		t.Errorf("cannot allocated %v times a call, want 0", n)
	}
}

var sink bool

// BenchmarkCannot measures ruling out a typical callee text against an expression of many
// alternatives, and a long statement's text.
//
//	go test ./internal/lazyregexp -run '^$' -bench Cannot
func BenchmarkCannot(b *testing.B) {
	r := New(`(?i)(load|offload|unload|reload|swap|switch)_?(model|pipeline|pipe|weights|adapter|lora)`)
	r.re()
	for _, text := range []string{"self.text_encoder.to", strings.Repeat("x = compute(batch, labels) + other_value; ", 20)} {
		b.Run(fmt.Sprint(len(text)), func(b *testing.B) {
			for b.Loop() {
				sink = r.cannot(text)
			}
		})
	}
}
