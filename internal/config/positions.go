package config

import (
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// positions remembers the line of every key and array element of a TOML document, so
// that a value that decodes but is wrong (an unknown rule code) can be reported at its
// line; the decoder only gives lines for the errors it finds itself.
type positions struct {
	prefix []string
	lines  map[string]int
}

func pathKey(parts []string) string { return strings.Join(parts, "\x00") }

func newPositions(data []byte, prefix []string) *positions {
	pos := &positions{prefix: prefix, lines: map[string]int{}}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(n.Key())
			if it := n.Key(); it.Next() {
				pos.lines[pathKey(table)] = p.Shape(it.Node().Raw).Start.Line
			}
		case unstable.KeyValue:
			pos.keyValue(&p, table, n)
		}
	}
	// The document decoded already, so a parse error here cannot happen; the lines
	// found up to it are still right.
	return pos
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

func (pos *positions) keyValue(p *unstable.Parser, table []string, n *unstable.Node) {
	it := n.Key()
	line := 0
	path := append([]string(nil), table...)
	for it.Next() {
		k := it.Node()
		if line == 0 {
			line = p.Shape(k.Raw).Start.Line
		}
		path = append(path, string(k.Data))
	}
	pos.value(p, path, n.Value(), line)
}

func (pos *positions) value(p *unstable.Parser, path []string, v *unstable.Node, line int) {
	pos.lines[pathKey(path)] = line
	switch v.Kind {
	case unstable.Array:
		children := v.Children()
		for i := 0; children.Next(); i++ {
			c := children.Node()
			cl := line
			if c.Raw.Length > 0 {
				cl = p.Shape(c.Raw).Start.Line
			}
			pos.value(p, append(path[:len(path):len(path)], "#"+strconv.Itoa(i)), c, cl)
		}
	case unstable.InlineTable:
		children := v.Children()
		for children.Next() {
			pos.keyValue(p, path, children.Node())
		}
	}
}

// line is the line of a key below the prefix table, or of its nearest known parent.
func (pos *positions) line(keys ...string) int {
	full := append(append([]string(nil), pos.prefix...), keys...)
	for n := len(full); n > 0; n-- {
		if l, ok := pos.lines[pathKey(full[:n])]; ok {
			return l
		}
	}
	return 0
}

// element is the line of the i-th element of the array at keys.
func (pos *positions) element(i int, keys ...string) int {
	return pos.line(append(keys, "#"+strconv.Itoa(i))...)
}
