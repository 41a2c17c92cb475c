package lazyregexp

import (
	"regexp"
	"slices"
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
