package cli

import "testing"

func TestWrapMarkdown(t *testing.T) {
	tests := []struct {
		name, in, want string
		width          int
	}{
		{"paragraph re-flowed", "one two three\nfour five six seven\n", "one two three four\nfive six seven\n", 20},
		{"hanging list item", "- alpha beta gamma delta\n  epsilon\n1. one two three four\n", "- alpha beta gamma\n  delta epsilon\n1. one two three\n   four\n", 20},
		{"fence kept", "```python\nx = a_very_long_name_that_would_not_fit(argument, another_argument)\n```\n",
			"```python\nx = a_very_long_name_that_would_not_fit(argument, another_argument)\n```\n", 20},
		{"tilde fence kept", "~~~\na b c d e f g h i j k l m n o p\n~~~\n", "~~~\na b c d e f g h i j k l m n o p\n~~~\n", 10},
		{"table and heading kept", "## A heading that is longer than ten\n| a | b c d e f g |\n", "## A heading that is longer than ten\n| a | b c d e f g |\n", 10},
		{"indented code kept", "    for x in y: do(x, y, z, w)\n", "    for x in y: do(x, y, z, w)\n", 10},
		{"long word alone", "a https://example.com/a/very/long/url b\n", "a\nhttps://example.com/a/very/long/url\nb\n", 10},
		{"block quote", "> one two three four\n> five\n", "> one two three\n> four five\n", 16},
		{"blank lines kept", "a\n\n\nb\n", "a\n\n\nb\n", 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wrapMarkdown(tt.in, tt.width); got != tt.want {
				t.Errorf("wrapMarkdown(%q, %d) =\n%q\nwant\n%q", tt.in, tt.width, got, tt.want)
			}
		})
	}
}
