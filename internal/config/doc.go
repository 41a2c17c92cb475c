// Package config reads cachelint's settings: the [tool.cachelint] table of
// pyproject.toml, or the top level of cachelint.toml / .cachelint.toml.
//
// Discovery follows ruff: from a directory upward, the closest directory with a
// configuration file wins and parents are not merged; within one directory
// .cachelint.toml beats cachelint.toml beats pyproject.toml, and a pyproject.toml
// without a [tool.cachelint] table does not count. Keys are kebab-case like ruff's.
// Unknown keys, values of the wrong type, unknown rule selectors and invalid globs are
// errors of type *Error, whose text is "file:line: message", as is invalid TOML.
package config
