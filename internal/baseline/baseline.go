// Package baseline records the findings a project already has, so that a run can report
// only new ones (`--write-baseline FILE`, `--baseline FILE`).
//
// A finding is identified by its rule code, its file (a slash path relative to the project
// root), its enclosing function and its code snippet with formatting whitespace removed,
// never by line number: code
// added above a baselined finding does not bring it back. Identical findings in one
// function share a key, so the baseline stores how many there were; one more identical call
// in that function is a new finding.
//
// The file is JSON, versioned, sorted and indented so that it diffs well in review:
//
//	{
//	  "version": 1,
//	  "findings": [
//	    {"code": "CL001", "file": "src/train.py", "function": "train", "snippet": "torch.cuda.empty_cache()", "count": 1}
//	  ]
//	}
//
// (each entry is written with one field per line).
package baseline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cachelint/cachelint/internal/report"
)

// Version is the format version this package writes and reads.
const Version = 1

// Key is what identifies a finding across edits.
type Key struct {
	Code     string `json:"code"`
	File     string `json:"file"`
	Function string `json:"function"`
	Snippet  string `json:"snippet"`
}

// KeyOf returns the key of a finding. root is the project root that File is made relative
// to; "" keeps File as it is (with forward slashes).
func KeyOf(f report.Finding, root string) Key {
	return Key{
		Code:     f.Code,
		File:     relSlash(root, f.File),
		Function: f.Function,
		Snippet:  normalise(f.Snippet),
	}
}

// normalise drops the whitespace a formatter may add or remove (`f(a,b)` and
// `f( a, b )` are the same call) and keeps one space only where it separates two words
// (`not x`), so reformatting a file does not bring its baselined findings back.
func normalise(snippet string) string {
	var b strings.Builder
	pendingSpace := false
	for _, r := range snippet {
		if unicode.IsSpace(r) {
			pendingSpace = b.Len() > 0
			continue
		}
		if pendingSpace && isWord(lastRune(b.String())) && isWord(r) {
			b.WriteByte(' ')
		}
		pendingSpace = false
		b.WriteRune(r)
	}
	return b.String()
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// Fingerprint is a stable hex digest of the key, for formats that want an opaque
// fingerprint (SARIF partialFingerprints).
func (k Key) Fingerprint() string {
	h := sha256.New()
	for _, s := range []string{k.Code, k.File, k.Function, k.Snippet} {
		// Length prefixes keep ("a", "bc") and ("ab", "c") apart.
		fmt.Fprintf(h, "%d:%s\x00", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Fingerprints returns one fingerprint per finding, from the same key a baseline records
// (file relative to root, function, code, normalised snippet; never the line), so SARIF,
// GitLab and baselines agree on which findings are the same. The occurrence number keeps
// identical findings of one function apart, in the order given.
func Fingerprints(fs []report.Finding, root string) []string {
	seen := map[Key]int{}
	out := make([]string, len(fs))
	for i, f := range fs {
		k := KeyOf(f, root)
		n := seen[k]
		seen[k] = n + 1
		sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d", k.Fingerprint(), n))
		out[i] = hex.EncodeToString(sum[:16])
	}
	return out
}

func relSlash(root, file string) string {
	if file == "" {
		return ""
	}
	if root != "" {
		absRoot, err1 := filepath.Abs(root)
		absFile, err2 := filepath.Abs(filepath.FromSlash(file))
		if err1 == nil && err2 == nil {
			if rel, err := filepath.Rel(absRoot, absFile); err == nil && rel != ".." &&
				!strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(filepath.FromSlash(file)))
}

// Entry is one key and how many findings had it.
type Entry struct {
	Key
	Count int `json:"count"`
}

// Baseline is a loaded baseline file.
type Baseline struct {
	counts map[Key]int
}

type file struct {
	Version  *int    `json:"version"`
	Findings []Entry `json:"findings"`
}

// Entries returns the baseline's entries in file order (sorted by file, function, code,
// snippet).
func (b *Baseline) Entries() []Entry {
	out := make([]Entry, 0, len(b.counts))
	for k, n := range b.counts {
		out = append(out, Entry{Key: k, Count: n})
	}
	sortEntries(out)
	return out
}

func sortEntries(es []Entry) {
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i].Key, es[j].Key
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Function != b.Function {
			return a.Function < b.Function
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Snippet < b.Snippet
	})
}

// Write records findings as a baseline. The output depends only on the set of findings,
// not on their order.
func Write(w io.Writer, findings []report.Finding, root string) error {
	counts := map[Key]int{}
	for _, f := range findings {
		counts[KeyOf(f, root)]++
	}
	entries := (&Baseline{counts: counts}).Entries()
	v := Version
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(file{Version: &v, Findings: entries}); err != nil {
		return fmt.Errorf("encode baseline: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	return nil
}

// Load reads a baseline file written by Write.
func Load(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read baseline: %w", err)
	}
	b, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	return b, nil
}

func parse(data []byte) (*Baseline, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, describeJSONError(data, err)
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the baseline object")
	}
	if f.Version == nil {
		return nil, errors.New(`missing "version"; is this a cachelint baseline file?`)
	}
	if *f.Version != Version {
		return nil, fmt.Errorf("unsupported version %d (this cachelint reads version %d); regenerate it with --write-baseline", *f.Version, Version)
	}
	b := &Baseline{counts: map[Key]int{}}
	for i, e := range f.Findings {
		switch {
		case e.Code == "":
			return nil, fmt.Errorf("finding %d: missing \"code\"", i+1)
		case e.File == "":
			return nil, fmt.Errorf("finding %d (%s): missing \"file\"", i+1, e.Code)
		case e.Count < 1:
			return nil, fmt.Errorf("finding %d (%s in %s): \"count\" must be at least 1, got %d", i+1, e.Code, e.File, e.Count)
		}
		e.Snippet = normalise(e.Snippet)
		b.counts[e.Key] += e.Count
	}
	return b, nil
}

// describeJSONError adds the line and column to a JSON syntax or type error.
func describeJSONError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var off int64
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	case errors.Is(err, io.EOF):
		return errors.New("empty file, expected a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("unexpected end of file: the JSON is truncated")
	default:
		return fmt.Errorf("invalid JSON: %w", err)
	}
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Errorf("line %d, column %d: invalid JSON: %w", line, col, err)
}

// Filter returns the findings that the baseline does not account for, in their original
// order. When a key has more findings than the baseline recorded, the first ones by
// position (line, then column) are taken as the recorded ones and the rest are new.
func (b *Baseline) Filter(findings []report.Finding, root string) []report.Finding {
	byKey := map[Key][]int{}
	for i, f := range findings {
		k := KeyOf(f, root)
		byKey[k] = append(byKey[k], i)
	}
	isNew := make([]bool, len(findings))
	for k, idx := range byKey {
		sort.SliceStable(idx, func(a, c int) bool {
			fa, fc := findings[idx[a]], findings[idx[c]]
			if fa.Line != fc.Line {
				return fa.Line < fc.Line
			}
			return fa.Column < fc.Column
		})
		for _, i := range idx[min(b.counts[k], len(idx)):] {
			isNew[i] = true
		}
	}
	var out []report.Finding
	for i, f := range findings {
		if isNew[i] {
			out = append(out, f)
		}
	}
	return out
}
