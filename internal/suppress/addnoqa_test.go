package suppress

import (
	"strings"
	"testing"
)

func TestAddNoqa(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    map[int][]string
		out     string
		changed int
	}{
		{
			name:    "append",
			src:     "for b in loader:\n    torch.cuda.empty_cache()\n",
			want:    map[int][]string{2: {"CL001"}},
			out:     "for b in loader:\n    torch.cuda.empty_cache()  # noqa: CL001\n",
			changed: 1,
		},
		{
			name:    "trailing whitespace trimmed",
			src:     "x()   \t\n",
			want:    map[int][]string{1: {"CL001"}},
			out:     "x()  # noqa: CL001\n",
			changed: 1,
		},
		{
			name:    "several codes sorted",
			src:     "x()\n",
			want:    map[int][]string{1: {"CL004", "CL001", "CL004"}},
			out:     "x()  # noqa: CL001, CL004\n",
			changed: 1,
		},
		{
			name:    "after an existing comment",
			src:     "x()  # free memory\n",
			want:    map[int][]string{1: {"CL001"}},
			out:     "x()  # free memory  # noqa: CL001\n",
			changed: 1,
		},
		{
			name:    "merge into existing noqa",
			src:     "x()  # noqa: E501\n",
			want:    map[int][]string{1: {"CL001"}},
			out:     "x()  # noqa: CL001, E501\n",
			changed: 1,
		},
		{
			name:    "merge keeps explanation and other comments",
			src:     "x()  # keep # noqa:E501 long line # type: ignore\n",
			want:    map[int][]string{1: {"CL001"}},
			out:     "x()  # keep  # noqa: CL001, E501 long line # type: ignore\n",
			changed: 1,
		},
		{
			name:    "blanket noqa already suppresses",
			src:     "x()  # noqa\n",
			want:    map[int][]string{1: {"CL001"}},
			out:     "x()  # noqa\n",
			changed: 0,
		},
		{
			name:    "ignore comment already suppresses",
			src:     "x()  # cachelint: ignore[CL001]\n",
			want:    map[int][]string{1: {"CL001"}},
			out:     "x()  # cachelint: ignore[CL001]\n",
			changed: 0,
		},
		{
			name:    "file exemption already suppresses",
			src:     "# cachelint: noqa-file: CL001\nx()\n",
			want:    map[int][]string{2: {"CL001"}},
			out:     "# cachelint: noqa-file: CL001\nx()\n",
			changed: 0,
		},
		{
			name:    "invalid noqa kept, valid one appended",
			src:     "x()  # noqa: cl001\n",
			want:    map[int][]string{1: {"CL001"}},
			out:     "x()  # noqa: cl001  # noqa: CL001\n",
			changed: 1,
		},
		{
			name:    "crlf kept",
			src:     "a()\r\nx()\r\nb()\r\n",
			want:    map[int][]string{2: {"CL001"}},
			out:     "a()\r\nx()  # noqa: CL001\r\nb()\r\n",
			changed: 1,
		},
		{
			name:    "no final newline",
			src:     "a()\nx()",
			want:    map[int][]string{2: {"CL001"}},
			out:     "a()\nx()  # noqa: CL001",
			changed: 1,
		},
		{
			name:    "multi-line string: comment on its last line",
			src:     "os.environ['PYTORCH_CUDA_ALLOC_CONF'] = '''\nmax_split_size_mb:10\n'''\n",
			want:    map[int][]string{1: {"CL011"}, 2: {"CL011"}},
			out:     "os.environ['PYTORCH_CUDA_ALLOC_CONF'] = '''\nmax_split_size_mb:10\n'''  # noqa: CL011\n",
			changed: 1,
		},
		{
			name:    "backslash continuation: comment on the last line",
			src:     "x = torch.cuda.empty_cache() or \\\n    y\n",
			want:    map[int][]string{1: {"CL001"}},
			out:     "x = torch.cuda.empty_cache() or \\\n    y  # noqa: CL001\n",
			changed: 1,
		},
		{
			name:    "unterminated string: nothing can go there",
			src:     "s = '''\nx()",
			want:    map[int][]string{1: {"CL001"}},
			out:     "s = '''\nx()",
			changed: 0,
		},
		{
			name:    "unterminated single-quoted string: appending would land inside it",
			src:     "x(); s = 'abc\n",
			want:    map[int][]string{1: {"CL001"}},
			out:     "x(); s = 'abc\n",
			changed: 0,
		},
		{
			name:    "out of range and bad codes ignored",
			src:     "x()\n",
			want:    map[int][]string{0: {"CL001"}, 2: {"CL001"}, 1: {"cl001", "CL 1", ""}},
			out:     "x()\n",
			changed: 0,
		},
		{
			name:    "several lines",
			src:     "a()\nb()\nc()\n",
			want:    map[int][]string{3: {"CL002"}, 1: {"CL001"}},
			out:     "a()  # noqa: CL001\nb()\nc()  # noqa: CL002\n",
			changed: 2,
		},
		{
			name:    "own-line noqa comment keeps its indentation",
			src:     "    # noqa: E501\n",
			want:    map[int][]string{1: {"CL001"}},
			out:     "    # noqa: CL001, E501\n",
			changed: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, n := AddNoqa([]byte(tt.src), tt.want)
			if string(out) != tt.out || n != tt.changed {
				t.Fatalf("AddNoqa =\n%q (%d changed)\nwant\n%q (%d changed)", out, n, tt.out, tt.changed)
			}
			again, n2 := AddNoqa(out, tt.want)
			if string(again) != string(out) || n2 != 0 {
				t.Errorf("second AddNoqa changed %d lines:\n%q", n2, again)
			}
			d := Parse(out)
			for line, codes := range tt.want {
				for _, c := range codes {
					if tt.changed > 0 && isCode(c) && line >= 1 && line <= strings.Count(tt.src, "\n")+1 &&
						!strings.HasPrefix(tt.name, "unterminated") && !d.Suppressed(c, line) {
						t.Errorf("%s on line %d not suppressed after AddNoqa", c, line)
					}
				}
			}
		})
	}
}
