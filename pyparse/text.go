package pyparse

import (
	"bytes"

	"github.com/cachelint/cachelint/internal/suppress/pylex"
)

// commentRunKept is how many comment-only lines of one run (comment-only and blank lines in
// a row, at statement level) tree-sitter is shown; the others reach it as blank lines.
const commentRunKept = 64

// parseText is the text tree-sitter parses: src with the same length and offsets, so every
// position read from the tree is a position in src, but
//   - a lone '\r' (classic Mac line endings) is '\n': Python ends a line there, and
//     tree-sitter-python's scanner would read the whole file as one line;
//   - in a run of more than commentRunKept comment-only lines, the comments after the first
//     commentRunKept are spaces. At each line end the grammar's scanner reads ahead over
//     every comment line that follows to find the next indentation, so a run of N comment
//     lines cost N^2/2 line reads (20,000 lines: over 10 s); blank lines it reads once.
//     Those comments are no node of the tree; the text keeps them (suppressions and fixes
//     read src).
//
// src itself is returned when nothing changes, which is the common case.
func parseText(src []byte) []byte {
	text := src
	if i := bytes.IndexByte(src, '\r'); i >= 0 && hasLoneCR(src[i:]) {
		text = bytes.Clone(src)
		for i := range text {
			if text[i] == '\r' && (i+1 == len(text) || text[i+1] != '\n') {
				text[i] = '\n'
			}
		}
	}
	if !mayHaveCommentRun(text) {
		return text
	}
	if &text[0] == &src[0] {
		text = bytes.Clone(src)
	}
	var sc pylex.Scanner
	run := 0
	eachLine(text, func(line []byte) bool {
		info := sc.Line(line)
		body := bytes.TrimLeft(line, " \t\f")
		switch {
		case !info.Clean:
			run = 0
		case len(bytes.TrimRight(body, "\r")) == 0:
			// A blank line goes on the run.
		case info.Comment == len(line)-len(body):
			run++
			if run > commentRunKept {
				for i := info.Comment; i < len(line); i++ {
					if line[i] != '\r' {
						line[i] = ' '
					}
				}
			}
		default:
			run = 0
		}
		return true
	})
	return text
}

// eachLine calls fn with each line of text, without its '\n', until fn returns false.
func eachLine(text []byte, fn func(line []byte) bool) {
	for start := 0; start < len(text); {
		end := bytes.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		if !fn(text[start:end]) {
			return
		}
		start = end + 1
	}
}

func hasLoneCR(b []byte) bool {
	for i, c := range b {
		if c == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			return true
		}
	}
	return false
}

// mayHaveCommentRun is a quick look for more than commentRunKept lines in a row that start
// with a comment, before the exact (string-aware) pass.
func mayHaveCommentRun(text []byte) bool {
	run := 0
	eachLine(text, func(line []byte) bool {
		body := bytes.TrimLeft(line, " \t\f\r")
		switch {
		case len(body) == 0:
		case body[0] == '#':
			run++
		default:
			run = 0
		}
		return run <= commentRunKept
	})
	return run > commentRunKept
}
