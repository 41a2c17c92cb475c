package suppress

import (
	"reflect"
	"strings"
	"testing"
)

func TestSuppressed(t *testing.T) {
	tests := []struct {
		name string
		src  string
		code string
		line int
		want bool
	}{
		{"blanket noqa", "torch.cuda.empty_cache()  # noqa\n", "CL001", 1, true},
		{"blanket noqa upper case", "x()  # NOQA\n", "CL001", 1, true},
		{"noqa without space after hash", "x()  #noqa:CL001\n", "CL001", 1, true},
		{"noqa code", "x()  # noqa: CL001\n", "CL001", 1, true},
		{"noqa other code", "x()  # noqa: CL002\n", "CL001", 1, false},
		{"noqa list no space", "x()  # noqa:CL002,CL001\n", "CL001", 1, true},
		{"noqa list spaces", "x()  # noqa: CL002 CL001\n", "CL001", 1, true},
		{"noqa space before colon", "x()  # noqa : CL001\n", "CL001", 1, true},
		{"other linter codes only", "x()  # noqa: E501\n", "CL001", 1, false},
		{"other linter and ours", "x()  # noqa: E501, CL001\n", "CL001", 1, true},
		{"noqa with explanation", "x()  # noqa: CL001 runs once per epoch\n", "CL001", 1, true},
		{"explanation is not a code", "x()  # noqa: CL002 see CL001 docs\n", "CL001", 1, false},
		{"noqa after another comment", "x()  # leave it # noqa: CL001\n", "CL001", 1, true},
		{"noqa then other tool comment", "x()  # noqa: CL001 # type: ignore\n", "CL001", 1, true},
		{"noqa without colon is blanket", "x()  # noqa CL002\n", "CL001", 1, true},
		{"lower-case code is invalid", "x()  # noqa: cl001\n", "CL001", 1, false},
		{"noqa suffix is invalid", "x()  # noqa-CL001\n", "CL001", 1, false},
		{"noqa on another line", "x()\n# noqa\n", "CL001", 1, false},
		{"ignore bracket", "x()  # cachelint: ignore[CL001]\n", "CL001", 1, true},
		{"ignore bracket list", "x()  # cachelint: ignore[CL002, CL001]\n", "CL001", 1, true},
		{"ignore bracket other", "x()  # cachelint: ignore[CL002]\n", "CL001", 1, false},
		{"ignore by rule name", "x()  # cachelint: ignore[empty-cache-per-step]\n", "CL001", 1, true},
		{"ignore without brackets", "x()  # cachelint: ignore CL001\n", "CL001", 1, false},
		{"own-line ignore: next code line", "# cachelint: ignore[CL001]\n\n# why\nx()\n", "CL001", 4, true},
		{"own-line ignore: not the line after", "# cachelint: ignore[CL001]\nx()\ny()\n", "CL001", 3, false},
		{"own-line noqa is not for the next line", "# noqa: CL001\nx()\n", "CL001", 2, false},
		{"file level", "import torch\n# cachelint: noqa-file\n\nx()\n", "CL004", 4, true},
		{"file level indented", "if True:\n    # cachelint: noqa-file\n    x()\n", "CL004", 3, true},
		{"file level codes", "# cachelint: noqa-file: CL002\nx()\n", "CL002", 2, true},
		{"file level codes other", "# cachelint: noqa-file: CL002\nx()\n", "CL001", 2, false},
		{"file level must be own line", "x()  # cachelint: noqa-file\ny()\n", "CL001", 2, false},
		{"ruff file noqa is not ours", "# ruff: noqa\nx()\n", "CL001", 2, false},
		{"in a string", "s = '# noqa'; x()\n", "CL001", 1, false},
		{"in a double-quoted string", "s = \"# noqa: CL001\"; x()\n", "CL001", 1, false},
		{"after a string with a hash", "s = '#'; x()  # noqa: CL001\n", "CL001", 1, true},
		{"escaped quote", "s = 'it\\'s # noqa'; x()\n", "CL001", 1, false},
		{"raw string backslash quote", "s = r'\\' # noqa'; x()\n", "CL001", 1, false},
		{"docstring", "\"\"\"\n# noqa: CL001\n\"\"\"\nx()\n", "CL001", 2, false},
		{"docstring line maps to its end", "s = \"\"\"\n# noqa\n\"\"\"\nx()\n", "CL001", 2, false},
		{"file level in docstring", "\"\"\"\n# cachelint: noqa-file\n\"\"\"\nx()\n", "CL001", 4, false},
		{"byte string prefix", "s = b'# noqa'; x()\n", "CL001", 1, false},
		{"f-string", "s = f'{a} # noqa'; x()\n", "CL001", 1, false},
		{"f-string nested same quotes", "s = f\"{d[\"k\"]} # noqa\"; x()\n", "CL001", 1, false},
		{"f-string nested quote hides a hash", "s = f\"{d[\"# noqa\"]}\"; x()\n", "CL001", 1, false},
		{"t-string", "s = t\"{d[\"# noqa\"]}\"; x()\n", "CL001", 1, false},
		{"f-string format spec", "s = f\"{v:>{w}} # noqa\"; x()\n", "CL001", 1, false},
		{"f-string then comment", "s = f\"{v:>{w}}\"  # noqa: CL001\n", "CL001", 1, true},
		{"f-string doubled braces", "s = f'{{ # noqa }}'; x()\n", "CL001", 1, false},
		{"identifier ending in f", "elf = 1; s = elf  # noqa: CL001\n", "CL001", 1, true},
		{"triple quoted with inner quotes", "s = '''it's \"#\" '''  # noqa: CL001\n", "CL001", 1, true},
		{"multi-line string: comment on last line", "s = '''a\nb\nc'''  # noqa: CL011\n", "CL011", 1, true},
		{"multi-line string: middle line", "s = '''a\nb\nc'''  # noqa: CL011\n", "CL011", 2, true},
		{"backslash continuation", "x = a + \\\n    b  # noqa: CL001\n", "CL001", 1, true},
		{"bracket continuation uses the reported line", "f(\n    a,\n)  # noqa: CL001\n", "CL001", 1, false},
		{"unterminated string recovers at end of line", "s = 'abc\nx()  # noqa: CL001\n", "CL001", 2, true},
		{"crlf", "x()  # noqa: CL001\r\ny()\r\n", "CL001", 1, true},
		{"no final newline", "x()\ny()  # noqa: CL001", "CL001", 2, true},
		{"bom", "\xef\xbb\xbf# cachelint: noqa-file\nx()\n", "CL001", 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse([]byte(tt.src))
			if got := d.Suppressed(tt.code, tt.line); got != tt.want {
				t.Errorf("Suppressed(%s, %d) = %v, want %v\nsource:\n%s\nwarnings: %v", tt.code, tt.line, got, tt.want, tt.src, d.Warnings())
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		src  string
		want string // substring of the only warning
	}{
		{"x()  # noqa: cl001\n", "comma-separated list of codes"},
		{"x()  # noqa:\n", "comma-separated list of codes"},
		{"x()  # noqa: CL001abc\n", `"CL001abc"`},
		{"x()  # noqa;CL001\n", "expected `:`"},
		{"x()  # cachelint: noqa-file\n", "line of its own"},
		{"x()  # cachelint: ignore CL001\n", "in brackets"},
		{"x()  # cachelint: ignore[CL001\n", "missing `]`"},
		{"x()  # cachelint: ignore[no-such-rule]\n", `unknown rule "no-such-rule"`},
		{"x()  # cachelint: skip\n", "unknown `# cachelint:` directive"},
		{"# cachelint: ignore[CL001]\n", "there is none"},
	}
	for _, tt := range tests {
		w := Parse([]byte(tt.src)).Warnings()
		if len(w) != 1 || !strings.Contains(w[0].Message, tt.want) || w[0].Line != 1 {
			t.Errorf("%q: warnings %v, want one on line 1 containing %q", tt.src, w, tt.want)
		}
	}
	for _, src := range []string{
		"x()  # noqa\n", "x()  # noqa: E501 CL001\n", "x()  # cachelint is great\n",
		"s = '# noqa:'\n", "x()  # cachelint: ignore[CL001, empty-cache-periodic]\n",
	} {
		if w := Parse([]byte(src)).Warnings(); len(w) != 0 {
			t.Errorf("%q: unexpected warnings %v", src, w)
		}
	}
}

func TestUnused(t *testing.T) {
	src := strings.Join([]string{
		"# cachelint: noqa-file: CL003",   // 1: unused
		"a()  # noqa: CL001, CL002, E501", // 2: CL001 used, CL002 unused, E501 not ours
		"b()  # noqa",                     // 3: blanket: never reported
		"c()  # cachelint: ignore[CL004]", // 4: used
		"d()  # cachelint: ignore[CL005]", // 5: unused
		"e()  # noqa: E501",               // 6: other tool only
		"",
	}, "\n")
	d := Parse([]byte(src))
	for _, f := range []struct {
		code string
		line int
	}{{"CL001", 2}, {"CL004", 4}} {
		if !d.Suppressed(f.code, f.line) {
			t.Fatalf("%s on line %d not suppressed", f.code, f.line)
		}
	}
	want := []Unused{
		{Line: 1, Directive: "# cachelint: noqa-file: CL003", Codes: []string{"CL003"}},
		{Line: 2, Directive: "# noqa: CL001, CL002, E501", Codes: []string{"CL002"}},
		{Line: 5, Directive: "# cachelint: ignore[CL005]", Codes: []string{"CL005"}},
	}
	if got := d.Unused(); !reflect.DeepEqual(got, want) {
		t.Errorf("Unused() =\n%#v\nwant\n%#v", got, want)
	}
}

func TestUnusedFileBlanket(t *testing.T) {
	d := Parse([]byte("# cachelint: noqa-file\nx()\n"))
	if got := d.Unused(); len(got) != 1 || got[0].Line != 1 || got[0].Codes != nil {
		t.Fatalf("before use: Unused() = %v, want the file directive", got)
	}
	d.Suppressed("CL001", 2)
	if got := d.Unused(); len(got) != 0 {
		t.Errorf("after use: Unused() = %v, want none", got)
	}
}

func TestNoqaLine(t *testing.T) {
	src := "a = 1\n" + // 1
		"s = '''x\n" + // 2
		"y\n" + // 3
		"z''' + \\\n" + // 4: string ends, continuation
		"    t\n" + // 5
		"b = f(\n" + // 6
		"  1)\n" // 7
	d := Parse([]byte(src))
	want := map[int]int{1: 1, 2: 5, 3: 5, 4: 5, 5: 5, 6: 6, 7: 7}
	for in, out := range want {
		if got := d.NoqaLine(in); got != out {
			t.Errorf("NoqaLine(%d) = %d, want %d", in, got, out)
		}
	}
}
