package pyparse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	sitter "github.com/tree-sitter/go-tree-sitter"
	python "github.com/tree-sitter/tree-sitter-python/bindings/go"
)

// A file's parse gets BudgetFloor plus BudgetPerKB for each KB of it: about ten times what
// tree-sitter needs on a broken file of that size, twenty on a clean one (measured on a
// loaded 2-core machine, see bench/README.md). A file that takes longer gives ErrTimeout
// rather than stalling the run.
const (
	BudgetFloor = time.Second
	BudgetPerKB = 10 * time.Millisecond
)

// Budget is the parse time a file of size bytes gets.
func Budget(size int) time.Duration {
	return BudgetFloor + time.Duration(size/1024)*BudgetPerKB
}

var (
	langOnce sync.Once
	lang     *sitter.Language
	langErr  error
	// Symbol and field names, read once: looking a name up through cgo for every node was
	// most of the cost of copying a tree.
	kindNames  []string
	punct      []bool // tokens the model never reads: brackets, commas, dots, a string's quotes
	fieldNames []string
)

// loadLanguage reads the grammar handle and its symbol and field names once per process.
func loadLanguage() {
	langOnce.Do(func() {
		installAllocator()
		language = python.Language()
		lang = sitter.NewLanguage(language)
		// Each parse makes its parser (parseTree); one made here tells a grammar the
		// library cannot load once, as an error of NewParser.
		p := sitter.NewParser()
		langErr = p.SetLanguage(lang)
		p.Close()
		n := lang.NodeKindCount()
		kindNames, punct = make([]string, n), make([]bool, n)
		for id := range n {
			kindNames[id] = lang.NodeKindForId(uint16(id))
			modelKinds[id] = modelKindOf(kindNames[id])
			switch kindNames[id] {
			case "(", ")", "[", "]", "{", "}", ",", ".", ";", "=", "->", "\"", "'", "`", ":=":
				punct[id] = !lang.NodeKindIsNamed(uint16(id))
			case "string_start", "string_end":
				// A string's opening and closing quotes (with its prefix): a tenth of the nodes
				// of training code, and what they hold is the string's own text.
				punct[id] = lang.NodeKindIsNamed(uint16(id))
			}
		}
		fieldNames = make([]string, lang.FieldCount()+1)
		for id := 1; id < len(fieldNames); id++ {
			fieldNames[id] = lang.FieldNameForId(uint16(id))
		}
		for _, f := range []struct {
			id   *uint8
			name string
		}{{&fieldIDs.attribute, "attribute"}, {&fieldIDs.object, "object"}, {&fieldIDs.function, "function"},
			{&fieldIDs.arguments, "arguments"}, {&fieldIDs.name, "name"}, {&fieldIDs.value, "value"}} {
			*f.id = uint8(slices.Index(fieldNames, f.name))
		}
		if len(kindNames) >= kindError || len(fieldNames) > 1<<fieldBits {
			panic(fmt.Sprintf("pyparse: a grammar of %d symbols and %d fields does not fit a Node's meta", len(kindNames), len(fieldNames)))
		}
	})
}

// Parser parses Python files. It is not safe for concurrent use: give each worker its own.
type Parser struct {
	arena  arena
	sc     *scratch
	cancel cancelFlag
	// Timeout, when set, replaces the file's Budget.
	Timeout time.Duration
}

// NewParser returns a parser; Close it when done.
func NewParser() (*Parser, error) {
	loadLanguage()
	if langErr != nil {
		return nil, fmt.Errorf("set python language: %w", langErr)
	}
	return &Parser{arena: newArena(), sc: scratches.Get().(*scratch), cancel: newCancelFlag()}, nil
}

// scratches keeps flatten's buffers from one parser to the next: a run makes a parser per
// worker for each prefilter round, and each would otherwise grow its own to the round's
// largest file (unsloth: 56 of the 720 MB a cold run allocated).
var scratches = sync.Pool{New: func() any { return new(scratch) }}

// Close releases the parser's memory.
func (p *Parser) Close() {
	if p.arena.p != nil {
		p.arena.free()
		p.arena.p = nil
	}
	if p.sc != nil {
		scratches.Put(p.sc)
		p.sc = nil
	}
	if p.cancel.p != nil {
		p.cancel.free()
		p.cancel.p = nil
	}
}

// ErrTimeout is returned when a file takes longer than its budget to parse.
var ErrTimeout = errors.New("parsing took longer than its budget")

// ParseAlone parses one file with a Parser of its own (Parse), for a caller that parses a
// file now and then rather than many in a row.
func ParseAlone(ctx context.Context, path string, src []byte) (*File, error) {
	p, err := NewParser()
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Parse(ctx, path, src)
}

// Parse parses src (the contents of path) and builds its model. Syntax errors do not fail the
// parse: they are listed in File.Errors. An error is returned only when no tree could be built
// (timeout, cancellation).
func (p *Parser) Parse(ctx context.Context, path string, src []byte) (*File, error) {
	if len(src) > math.MaxInt32 {
		// Node offsets are int32 (tree-sitter's own are uint32).
		return nil, fmt.Errorf("%s: not analysed: %d MB is over the 2 GB a file may have", path, len(src)>>20)
	}
	budget := p.Timeout
	if budget <= 0 {
		budget = Budget(len(src))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	// The flag is set when ctx is done during the parse; once the parse is over, it is set
	// no more (a late setter is waited for), so the next parse starts from a clear flag.
	p.cancel.store(0)
	set := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { p.cancel.store(1); close(set) })
	f := &File{Path: path, Src: src}
	f.Root = parseTree(p.arena, parseText(src), budget, p.cancel, f, p.sc)
	if !stop() {
		<-set
	}
	if f.Root == nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("parse %s: %w", path, ctx.Err())
		}
		return nil, fmt.Errorf("%s: not analysed: %w of %s (%d KB)", path, ErrTimeout, budget, (len(src)+1023)/1024)
	}
	f.buildModel(f.Root, p.sc)
	return f, nil
}

// isPunct reports punctuation, which the copy leaves out: it is most of a tree's
// nodes and nothing reads it (operators and keywords such as `%`, `==`, `not` are kept).
func isPunct(id uint16) bool { return int(id) < len(punct) && punct[id] }

// symError is tree-sitter's symbol of an ERROR node (ts_builtin_sym_error, (TSSymbol)-1).
const symError = 0xFFFF

func symbolName(id uint16) string {
	if int(id) < len(kindNames) {
		return kindNames[id]
	}
	if id == symError {
		return "ERROR"
	}
	if lang == nil {
		return ""
	}
	return lang.NodeKindForId(id)
}

// lineStarts returns the byte offset at which each line starts. Lines end as Python ends
// them: at '\n', "\r\n" or a lone '\r'.
func lineStarts(src []byte) []int { return appendLineStarts(nil, src) }

// appendLineStarts appends src's line starts (lineStarts) to starts.
func appendLineStarts(starts []int, src []byte) []int {
	starts = append(starts, 0)
	if bytes.IndexByte(src, '\r') < 0 {
		// Most files end their lines with '\n' alone: IndexByte finds them fastest.
		for i := 0; ; {
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				return starts
			}
			i += j + 1
			starts = append(starts, i)
		}
	}
	for i, c := range src {
		if c == '\n' || c == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// position converts a byte offset to a 0-based row and byte column.
func position(starts []int, off int) (row, col int) {
	lo, hi := 0, len(starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, off - starts[lo]
}
