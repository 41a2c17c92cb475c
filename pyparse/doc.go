// Package pyparse parses Python with tree-sitter and builds the model cachelint's analyzers
// work on: a plain Go copy of the syntax tree (Node), plus imports and aliases, classes,
// functions and methods, and every call with its dotted callee.
//
// It is the only package that imports tree-sitter (depguard enforces this). Parsing is
// error-tolerant: a file with syntax errors still yields a tree, with ERROR nodes where the
// grammar could not make sense of the text, and File.Errors says where.
//
// Each Parser wraps one tree-sitter parser and must be used by one goroutine at a time; every
// tree-sitter object is closed before Parse returns, so a File holds only Go memory.
package pyparse
