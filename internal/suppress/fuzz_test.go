package suppress

import (
	"bytes"
	"testing"
)

// FuzzSuppress feeds arbitrary text to the comment scanner and to AddNoqa: neither may
// panic, AddNoqa must keep the number of lines and be idempotent, and every finding it
// reports as handled must then be suppressed.
func FuzzSuppress(f *testing.F) {
	for _, seed := range []string{
		"x()  # noqa: CL001\n",
		"s = f\"{d[\"k\"]:>{w}} # noqa\"\n",
		"'''\n# cachelint: noqa-file\n'''\n# cachelint: ignore[CL001]\nx()\r\n",
		"x = a + \\\n  b  # noqa:E501 why # cachelint: ignore[empty-cache-per-step]",
		"u = 'a\\\nb'\nv = rb'''\\''' # NOQA",
		"\xef\xbb\xbf\x00\xff # noqa:",
	} {
		f.Add([]byte(seed), 1, "CL001")
	}
	f.Fuzz(func(t *testing.T, src []byte, line int, code string) {
		d := Parse(src)
		for l := 0; l <= len(d.lines)+1; l++ {
			d.Suppressed("CL001", l)
			if nl := d.NoqaLine(l); l >= 1 && l <= len(d.lines) && (nl < l || nl > len(d.lines)) {
				t.Fatalf("NoqaLine(%d) = %d outside [%d, %d]", l, nl, l, len(d.lines))
			}
		}
		d.Warnings()
		d.Unused()

		want := map[int][]string{line: {code, "CL001"}, 1: {"CL002"}}
		out, _ := AddNoqa(src, want)
		if bytes.Count(out, []byte("\n")) != bytes.Count(src, []byte("\n")) {
			t.Fatalf("AddNoqa changed the number of lines:\n%q\n%q", src, out)
		}
		again, n := AddNoqa(out, want)
		if n != 0 || !bytes.Equal(again, out) {
			t.Fatalf("AddNoqa is not idempotent (%d more changes):\n%q\n%q", n, out, again)
		}
		after := Parse(out)
		for l, codes := range want {
			if l < 1 || l > len(after.lines) || !after.lines[after.NoqaLine(l)-1].commentable {
				continue
			}
			for _, c := range codes {
				if isCode(c) && !after.Suppressed(c, l) {
					t.Fatalf("%s on line %d not suppressed after AddNoqa:\n%q", c, l, out)
				}
			}
		}
	})
}
