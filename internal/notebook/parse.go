package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// piece is one JSON string of a cell's source.
type piece struct {
	quote int    // byte offset of its opening quote in the .ipynb file
	text  string // the decoded string
	cell  int    // index in Notebook.Cells, set once the cell is added
}

type rawCell struct {
	index    int // 1-based among all cells
	typ      string
	pieces   []piece
	v3Pieces []piece // nbformat 3 keeps code in "input"
	hasV4    bool
	// bad says why the cell is not a cell (a "source" that is a number, a cell that is a
	// list): it is left out, and the other cells are read.
	bad error
}

// cellError is a cell whose JSON is valid but not a notebook cell's; its value has been
// read past, so the reader can go on with the next cell.
type cellError struct{ err error }

func (e *cellError) Error() string { return e.err.Error() }
func (e *cellError) Unwrap() error { return e.err }

// reader walks the notebook's JSON with a token decoder, which keeps memory flat on huge
// notebooks (outputs are skipped, not built) and tells where each source string starts.
type reader struct {
	data     []byte
	dec      *json.Decoder
	cells    []rawCell
	language string
	kernel   string
	nbformat int
	// tokens makes skipValue read token by token (see there).
	tokens bool
}

// syntaxError gives a decoding error the file position it happened at.
func (r *reader) syntaxError(err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		line, col := position(r.data, newlines(r.data), int(syn.Offset))
		return fmt.Errorf("invalid JSON at line %d, column %d: %w", line, col, err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: unexpected end of file (truncated notebook?)")
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

// typeError reports a value of the wrong JSON type at offset.
func (r *reader) typeError(off int, what, want string, tok json.Token) error {
	line, col := position(r.data, newlines(r.data), r.valueStart(off))
	return fmt.Errorf("line %d, column %d: %s must be %s, got %s", line, col, what, want, describe(tok))
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "a list"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// valueStart skips from the end of the previous token to the start of the next value:
// only whitespace and the ',' or ':' delimiters can lie between.
func (r *reader) valueStart(off int) int {
	for off < len(r.data) {
		switch r.data[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

func (r *reader) token() (json.Token, int, error) {
	off := int(r.dec.InputOffset())
	tok, err := r.dec.Token()
	if err != nil {
		return nil, off, r.syntaxError(err)
	}
	return tok, off, nil
}

// skip consumes one value whose first token was already read.
func (r *reader) skip(first json.Token) error {
	d, ok := first.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, _, err := r.token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// object calls field for each key of an object whose '{' was already read; field reads
// the value itself.
func (r *reader) object(field func(key string) error) error {
	for r.dec.More() {
		tok, _, err := r.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := field(key); err != nil {
			return err
		}
	}
	_, _, err := r.token() // '}'
	return err
}

// skipValue reads and discards the next value. It is decoded whole, not token by token:
// outputs and widget state are most of a notebook's bytes, and tokens read them at about
// half the speed. A syntax error inside a value decoded whole carries no offset in the
// file, so a notebook that fails is read again with tokens (Parse).
func (r *reader) skipValue() error {
	if r.tokens {
		tok, _, err := r.token()
		if err != nil {
			return err
		}
		return r.skip(tok)
	}
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		return r.syntaxError(err)
	}
	return nil
}

// stringValue reads the next value as a string; null and a missing value read as "".
func (r *reader) stringValue(what string) (string, error) {
	tok, off, err := r.token()
	if err != nil {
		return "", err
	}
	switch v := tok.(type) {
	case string:
		return v, nil
	case nil:
		return "", nil
	}
	if err := r.skip(tok); err != nil {
		return "", err
	}
	return "", &cellError{r.typeError(off, what, "a string", tok)}
}

func (r *reader) parse() error {
	tok, off, err := r.token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return r.typeError(off, "a notebook", "a JSON object", tok)
	}
	err = r.object(func(key string) error {
		switch key {
		case "cells":
			return r.cellList()
		case "worksheets":
			return r.worksheets()
		case "metadata":
			return r.metadata()
		case "nbformat":
			tok, _, err := r.token()
			if n, ok := tok.(json.Number); ok {
				if v, err := n.Int64(); err == nil {
					r.nbformat = int(v)
				}
			}
			if err != nil {
				return err
			}
			return r.skip(tok)
		}
		return r.skipValue()
	})
	if err != nil {
		return err
	}
	if _, err := r.dec.Token(); err != io.EOF {
		return errors.New("invalid JSON: unexpected data after the notebook object")
	}
	return nil
}

func (r *reader) worksheets() error {
	tok, off, err := r.token()
	if err != nil || tok == nil {
		return err
	}
	if tok != json.Delim('[') {
		return r.typeError(off, `"worksheets"`, "a list", tok)
	}
	for r.dec.More() {
		tok, off, err := r.token()
		if err != nil {
			return err
		}
		if tok != json.Delim('{') {
			return r.typeError(off, "a worksheet", "an object", tok)
		}
		if err := r.object(func(key string) error {
			if key == "cells" {
				return r.cellList()
			}
			return r.skipValue()
		}); err != nil {
			return err
		}
	}
	_, _, err = r.token()
	return err
}

func (r *reader) metadata() error {
	tok, _, err := r.token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return r.skip(tok) // metadata is informational: a wrong type is no reason to fail
	}
	return r.object(func(key string) error {
		var name string
		switch key {
		case "language_info":
			name = "name"
		case "kernelspec":
			name = "language"
		default:
			return r.skipValue()
		}
		tok, _, err := r.token()
		if err != nil {
			return err
		}
		if tok != json.Delim('{') {
			return r.skip(tok)
		}
		return r.object(func(k string) error {
			if k != name {
				return r.skipValue()
			}
			tok, _, err := r.token()
			if err != nil {
				return err
			}
			s, ok := tok.(string)
			if !ok {
				return r.skip(tok)
			}
			if key == "language_info" {
				r.language = s
			} else {
				r.kernel = s
			}
			return nil
		})
	})
}

func (r *reader) cellList() error {
	tok, off, err := r.token()
	if err != nil || tok == nil {
		return err
	}
	if tok != json.Delim('[') {
		return r.typeError(off, `"cells"`, "a list", tok)
	}
	for r.dec.More() {
		tok, off, err := r.token()
		if err != nil {
			return err
		}
		c := rawCell{index: len(r.cells) + 1}
		if tok != json.Delim('{') {
			c.bad = r.typeError(off, fmt.Sprintf("cell %d", c.index), "an object", tok)
			if err := r.skip(tok); err != nil {
				return err
			}
			r.cells = append(r.cells, c)
			continue
		}
		err = r.object(func(key string) error {
			var err error
			switch key {
			case "cell_type":
				c.typ, err = r.stringValue(fmt.Sprintf("cell %d: \"cell_type\"", c.index))
			case "source":
				c.hasV4 = true
				c.pieces, err = r.source(fmt.Sprintf("cell %d: \"source\"", c.index))
			case "input":
				c.v3Pieces, err = r.source(fmt.Sprintf("cell %d: \"input\"", c.index))
			default:
				err = r.skipValue()
			}
			if ce := (*cellError)(nil); errors.As(err, &ce) {
				if c.bad == nil {
					c.bad = ce.err
				}
				return nil
			}
			return err
		})
		if err != nil {
			return err
		}
		if !c.hasV4 {
			c.pieces = c.v3Pieces
		}
		if c.bad != nil {
			c.pieces = nil
		}
		r.cells = append(r.cells, c)
	}
	_, _, err = r.token()
	return err
}

// source reads a multiline string: a string, a list of strings, or null.
func (r *reader) source(what string) ([]piece, error) {
	tok, off, err := r.token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case nil:
		return nil, nil
	case string:
		return []piece{{quote: r.valueStart(off), text: v}}, nil
	}
	if tok != json.Delim('[') {
		if err := r.skip(tok); err != nil {
			return nil, err
		}
		return nil, &cellError{r.typeError(off, what, "a string or a list of strings", tok)}
	}
	var out []piece
	var bad error
	for i := 1; r.dec.More(); i++ {
		tok, off, err := r.token()
		if err != nil {
			return nil, err
		}
		s, ok := tok.(string)
		if !ok {
			if bad == nil {
				bad = r.typeError(off, fmt.Sprintf("%s item %d", what, i), "a string", tok)
			}
			if err := r.skip(tok); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, piece{quote: r.valueStart(off), text: s})
	}
	if _, _, err = r.token(); err != nil {
		return nil, err
	}
	if bad != nil {
		return nil, &cellError{bad}
	}
	return out, nil
}

// newlines returns the offsets of the '\n' bytes of data.
func newlines(data []byte) []int {
	var nl []int
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return nl
		}
		nl = append(nl, off+i)
		off += i + 1
	}
}
