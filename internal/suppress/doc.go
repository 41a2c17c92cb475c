// Package suppress reads the comments that silence findings and writes new ones.
//
// Recognised directives, following ruff's conventions so that users need learn nothing new:
//
//	x()  # noqa                       every finding on this line
//	x()  # noqa: CL001, CL002         only these codes (commas or spaces separate them)
//	x()  # cachelint: ignore[CL001]   only these codes; rule names work too:
//	x()  # cachelint: ignore[empty-cache-per-step]
//	# cachelint: ignore[CL001]        on its own line: the next line of code
//	# cachelint: noqa-file            on its own line anywhere: the whole file
//	# cachelint: noqa-file: CL002     the whole file, these codes only
//
// As in ruff, `# noqa` is case-insensitive, codes are upper-case letters followed by
// digits, text after the codes is an explanation, and `# noqa E501` (no colon) is a
// blanket noqa. A `# noqa` naming only other tools' codes (`# noqa: E501`) suppresses no
// cachelint finding. A directive inside a string literal is not a comment and does
// nothing: the file is tokenized (package pylex) to tell them apart.
//
// A finding is matched against the comment on its reported line. When that line is inside
// a multi-line string, or is joined to the next by a backslash, the comment belongs on the
// last line of that construct (where a comment can be written), as in ruff.
//
// Malformed or misplaced directives suppress nothing and are returned as warnings, so the
// caller can print them the way ruff does.
package suppress
