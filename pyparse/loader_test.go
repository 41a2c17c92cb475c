package pyparse

import (
	"bytes"
	"context"
	"fmt"
	"go/token"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestParseFilesParsesOnlyTheNamedPendingFiles(t *testing.T) {
	src := map[string]string{
		"a.py": "import torch\ntorch.cuda.empty_cache()\n",
		"b.py": "def get_device():\n    return torch.cuda\n",
		"c.py": "x = 1\n",
	}
	read := func(p string) ([]byte, error) { return []byte(src[p]), nil }
	r := NewResult([]string{"a.py", "b.py", "c.py"}, read, token.NewFileSet(), 1)
	if err := r.ParseMatching(context.Background(), []string{"empty_cache"}); err != nil {
		t.Fatal(err)
	}
	if r.Parsed != 1 || r.ByPath["a.py"] == nil {
		t.Fatalf("prefilter parsed %d files, want a.py alone", r.Parsed)
	}
	if err := r.ParseFiles(context.Background(), []string{"b.py", "a.py", "missing.py"}); err != nil {
		t.Fatal(err)
	}
	if r.Parsed != 2 || r.ByPath["b.py"] == nil || r.ByPath["c.py"] != nil {
		t.Fatalf("after ParseFiles: parsed %d, b.py %v, c.py %v; want a.py and b.py", r.Parsed, r.ByPath["b.py"] != nil, r.ByPath["c.py"] != nil)
	}
	// c.py is still pending: a later round can parse it.
	if err := r.ParseMatching(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if r.ByPath["c.py"] == nil {
		t.Error("c.py was lost from the pending files")
	}
}

// TestParseMatchingAnd: one pass parses the files that mention a needle and the named
// pending files, reads every file once (a named file is not read again for the needles), and
// leaves the others pending; a file that cannot be read is a failure in the files' order.
func TestParseMatchingAnd(t *testing.T) {
	src := map[string]string{
		"a.py": "import torch\ntorch.cuda.empty_cache()\n",
		"b.py": "def get_device():\n    return torch.cuda\n",
		"c.py": "x = 1\n",
		"d.py": "cleanup()\n",
	}
	var mu sync.Mutex
	reads := map[string]int{}
	read := func(p string) ([]byte, error) {
		mu.Lock()
		reads[p]++
		mu.Unlock()
		if s, ok := src[p]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("no such file %s", p)
	}
	r := NewResult([]string{"a.py", "b.py", "bad1.py", "bad2.py", "c.py", "d.py"}, read, token.NewFileSet(), 2)
	if err := r.ParseMatchingAnd(context.Background(), []string{"empty_cache", "cleanup"}, []string{"b.py", "bad2.py", "missing.py"}); err != nil {
		t.Fatal(err)
	}
	var parsed []string
	for _, f := range r.Files {
		parsed = append(parsed, f.Path)
	}
	if !slices.Equal(parsed, []string{"a.py", "b.py", "d.py"}) {
		t.Errorf("parsed %v, want a.py, b.py (named) and d.py", parsed)
	}
	for p, n := range reads {
		if n != 1 {
			t.Errorf("%s read %d times", p, n)
		}
	}
	var failed []string
	for _, fl := range r.Failures {
		failed = append(failed, fl.Path)
	}
	if !slices.Equal(failed, []string{"bad1.py", "bad2.py"}) {
		t.Errorf("failures %v, want bad1.py then bad2.py", failed)
	}
	if !slices.Equal(r.pending, []string{"c.py"}) {
		t.Errorf("pending %v, want c.py", r.pending)
	}
	// No needles: only the named files are read.
	clear(reads)
	r = NewResult([]string{"c.py", "d.py"}, read, token.NewFileSet(), 2)
	if err := r.ParseMatchingAnd(context.Background(), nil, []string{"c.py"}); err != nil {
		t.Fatal(err)
	}
	if r.ByPath["c.py"] == nil || len(reads) != 1 {
		t.Errorf("c.py parsed %v, files read %v", r.ByPath["c.py"] != nil, reads)
	}
}

// TestParseLargestFirst: the files that mention a needle are parsed after every file was
// scanned, the largest first, so that no large file is handed out last.
func TestParseLargestFirst(t *testing.T) {
	src := map[string]string{
		"a_small.py":  "import torch\ntorch.cuda.empty_cache()\n",
		"b_large.py":  "import torch\n" + strings.Repeat("x = 1\n", 500) + "torch.cuda.empty_cache()\n",
		"c_none.py":   strings.Repeat("y = 2\n", 900),
		"d_middle.py": "import torch\n" + strings.Repeat("x = 1\n", 50) + "torch.cuda.empty_cache()\n",
	}
	var files []string
	for p := range src {
		files = append(files, p)
	}
	slices.Sort(files)
	var order []string
	testHookParsing = func(path string) { order = append(order, path) }
	defer func() { testHookParsing = nil }()
	r := NewResult(files, func(p string) ([]byte, error) { return []byte(src[p]), nil }, token.NewFileSet(), 1)
	if err := r.ParseMatching(context.Background(), []string{"empty_cache"}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"b_large.py", "d_middle.py", "a_small.py"}; !slices.Equal(order, want) {
		t.Errorf("parsed in the order %v, want %v", order, want)
	}
	if r.Parsed != 3 || r.ByPath["c_none.py"] != nil || r.Files[0].Path != "a_small.py" {
		t.Errorf("parsed %d files, c_none.py %v, first %s", r.Parsed, r.ByPath["c_none.py"] != nil, r.Files[0].Path)
	}
}

// scannedSrc is a Result of the files of src (path -> text) after a round that parsed those
// naming empty_cache, and the function it reads them with.
func scannedSrc(t *testing.T, src map[string]string) (*Result, func(string) ([]byte, error)) {
	t.Helper()
	read := func(p string) ([]byte, error) { return []byte(src[p]), nil }
	var files []string
	for p := range src {
		files = append(files, p)
	}
	r := NewResult(files, read, token.NewFileSet(), 1)
	if err := r.ParseMatching(context.Background(), []string{"empty_cache"}); err != nil {
		t.Fatal(err)
	}
	return r, read
}

// TestMayBind: an unparsed module may bind a name when its code names it (a class or
// function defined, an import, an assignment, a string that is the name alone) or it imports
// `*`; a module that names it in a comment or a docstring only, or names something else,
// cannot. The questions go with MayImport's into
// ImportsAsked, and the cache's Matcher answers them again from a text, telling them apart.
func TestMayBind(t *testing.T) {
	src := map[string]string{
		"defines.py":   "class AutoTokenizer:\n    pass\n",
		"imports.py":   "from .tokenization_auto import AutoTokenizer\n",
		"assigns.py":   "try:\n    AutoTokenizer = load()\nexcept ImportError:\n    pass\n",
		"star.py":      "from .auto import *\n",
		"comment.py":   "# AutoTokenizer lives elsewhere\nx = 1\n",
		"docstring.py": "def load():\n    \"\"\">>> from transformers import AutoTokenizer\"\"\"\n",
		"exported.py":  "__all__ = [\"AutoTokenizer\"]\n",
		"unrelated.py": "class BertModel:\n    pass\n",
	}
	r, _ := scannedSrc(t, src)
	for path, want := range map[string]bool{
		"defines.py": true, "imports.py": true, "assigns.py": true, "star.py": true,
		"comment.py": false, "unrelated.py": false, "unread.py": true,
		"docstring.py": false, // named in a docstring's example only
		"exported.py":  true,  // a string that is the name alone is a mention
	} {
		if got := r.MayBind(path, "AutoTokenizer"); got != want {
			t.Errorf("MayBind(%s, AutoTokenizer) = %v, want %v", path, got, want)
		}
	}
	// MayImport's question about the same name is another question.
	if r.MayImport("assigns.py", "AutoTokenizer") {
		t.Error("MayImport(assigns.py): an assignment is no import")
	}
	asked := r.ImportsAsked()
	q := BindQuestion("AutoTokenizer")
	if yes, ok := asked["assigns.py"][q]; !ok || !yes || asked["assigns.py"]["AutoTokenizer"] {
		t.Fatalf("ImportsAsked()[assigns.py] = %v", asked["assigns.py"])
	}
	match := Matcher([]string{"empty_cache"})
	for path, text := range src {
		answers := map[string]bool{q: asked[path][q]}
		if match([]byte(text), answers) {
			t.Errorf("Matcher: %s's own text answers otherwise than MayBind did", path)
		}
		if !match([]byte(text), map[string]bool{q: !answers[q]}) {
			t.Errorf("Matcher: %s's text answers alike a question answered otherwise", path)
		}
	}
	// A module edited to define the name answers otherwise: the cache's entry does not hold.
	if !match([]byte(src["unrelated.py"]+"AutoTokenizer = BertModel\n"), map[string]bool{q: false}) {
		t.Error("Matcher: a module that now binds the name answers as before")
	}
}

func TestMayImport(t *testing.T) {
	src := map[string]string{
		"defines.py":  "import torch\n\n\ndef save(state):\n    torch.save(state, 'x.pt')\n",
		"explicit.py": "from .api import (\n    load,\n    save,\n)\n",
		"renamed.py":  "import pkg.store as save\n",
		"star.py":     "from .memory_utils import *\n",
		"strings.py":  "# from .io import save\nDOC = 'from .io import save'\n",
		"later.py":    "x = 1\nfrom .io import load\nsave = load\n",
	}
	r, read := scannedSrc(t, src)
	for path, want := range map[string]bool{
		"defines.py":  false, // names save in a def, not in an import
		"explicit.py": true,
		"renamed.py":  true,
		"star.py":     true,
		"strings.py":  false, // a comment and a string import nothing
		"later.py":    false, // binds save by assignment: not an import
		"unread.py":   true,  // never read: nothing is known
	} {
		if got := r.MayImport(path, "save"); got != want {
			t.Errorf("MayImport(%s, save) = %v, want %v", path, got, want)
		}
	}
	// A file of the scope that no round read (a run that keeps an earlier run's call graph
	// reads none) is read when asked about, and answers as if a round had read it.
	lazy := NewResult([]string{"defines.py", "star.py"}, read, token.NewFileSet(), 1)
	for path, want := range map[string]bool{"defines.py": false, "star.py": true, "unread.py": true} {
		if got := lazy.MayImport(path, "save"); got != want {
			t.Errorf("unscanned: MayImport(%s, save) = %v, want %v", path, got, want)
		}
	}
	// The questions are kept for the files still unparsed, and the cache's Matcher answers
	// them from a text as MayImport did from the file's signature: alike for the same text,
	// not for another answer.
	asked := r.ImportsAsked()
	if _, ok := asked["unread.py"]; !ok || len(asked) != len(src)+1 {
		t.Fatalf("ImportsAsked holds %d files, want the %d asked about", len(asked), len(src)+1)
	}
	match := Matcher([]string{"empty_cache"})
	for path, text := range src {
		answers := asked[path]
		if !maps.Equal(answers, map[string]bool{"save": r.MayImport(path, "save")}) {
			t.Errorf("ImportsAsked()[%s] = %v", path, answers)
		}
		if match([]byte(text), answers) {
			t.Errorf("Matcher: %s's own text answers otherwise than MayImport did", path)
		}
		if !match([]byte(text), map[string]bool{"save": !answers["save"]}) {
			t.Errorf("Matcher: %s's text answers alike a question answered otherwise", path)
		}
	}
	if !match([]byte("import torch\ntorch.cuda.empty_cache()\n"), nil) {
		t.Error("Matcher: a text naming a needle does not matter")
	}
	if err := r.ParseFiles(context.Background(), []string{"star.py"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.ImportsAsked()["star.py"]; ok {
		t.Error("ImportsAsked keeps a file parsed since")
	}
}

// TestKnownSignatures runs the same prefilter rounds over the fixture corpus three times: from
// nothing, with the signatures the first run kept (Know), and with garbled ones. The runs
// parse the same files and answer Mentions and MayImport alike; the second reads only the
// files a round's needles may be in, the third reads every file as the first does.
func TestKnownSignatures(t *testing.T) {
	src := treeCacheInputs(t)
	var files []string
	for p := range src {
		files = append(files, p)
	}
	rounds := [][]string{{"empty_cache", "accelerator.clear"}, {ImportedName("memory", "free_gpu"), "cleanup"}, {"train"}}
	type run struct {
		parsed  []string
		answers map[string][2]int // by round and name
		reads   map[string]int
		r       *Result
	}
	analyseIn := func(rounds [][]string, know func(string) []byte) run {
		out := run{answers: map[string][2]int{}, reads: map[string]int{}}
		var mu sync.Mutex
		read := func(p string) ([]byte, error) {
			mu.Lock()
			out.reads[p]++
			mu.Unlock()
			return src[p], nil
		}
		r := NewResult(files, read, token.NewFileSet(), 4)
		r.SignParsed = true
		if know != nil {
			r.Know(know)
		}
		for round, needles := range rounds {
			if err := r.ParseMatching(context.Background(), needles); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"free_gpu", "cleanup", "train", "step", "empty_cache"} {
				key := fmt.Sprint(round, name)
				out.answers[key] = [2]int{r.Mentions(name), 0}
				for _, p := range files {
					if r.MayImport(p, name) {
						a := out.answers[key]
						a[1]++
						out.answers[key] = a
					}
				}
			}
		}
		for _, f := range r.Files {
			out.parsed = append(out.parsed, f.Path)
		}
		out.r = r
		return out
	}
	analyse := func(know func(string) []byte) run { return analyseIn(rounds, know) }
	first := analyse(nil)
	kept := map[string][]byte{}
	for _, p := range files {
		if first.r.Signed(p) {
			kept[p] = first.r.AppendSignature(nil, p)
		} else if sig := first.r.AppendSignature(nil, p); sig != nil {
			t.Errorf("%s: a signature of %d bytes, but not Signed", p, len(sig))
		}
	}
	if len(kept) == 0 || len(first.parsed) == 0 {
		t.Fatalf("%d signatures kept, %d files parsed: the corpus exercises nothing", len(kept), len(first.parsed))
	}
	second := analyse(func(p string) []byte { return kept[p] })
	// A parsed file's signature is its whole text's, whether the run scanned it or took it
	// from the kept ones (it then scans only for the needles).
	for _, f := range first.r.Files {
		var whole signature
		newIdentSet([]string{"no_such_name"}).scan(f.Src, &whole, true)
		want := appendSignature(nil, &whole)
		if got := first.r.AppendSignature(nil, f.Path); !bytes.Equal(got, want) {
			t.Errorf("%s parsed: its signature is not its whole text's", f.Path)
		}
		if got := second.r.AppendSignature(nil, f.Path); !bytes.Equal(got, want) {
			t.Errorf("%s parsed with its signature known: the signature is not its whole text's", f.Path)
		}
	}
	garbled := analyse(func(p string) []byte {
		b := kept[p]
		if b == nil {
			return nil
		}
		switch len(p) % 3 {
		case 0:
			return b[:len(b)-1]
		case 1:
			return append([]byte{sigFormat + 1}, b[1:]...)
		}
		return append(b, 0)
	})
	for _, got := range []run{second, garbled} {
		if !slices.Equal(got.parsed, first.parsed) {
			t.Errorf("parsed %v, want %v", got.parsed, first.parsed)
		}
		if !maps.Equal(got.answers, first.answers) {
			t.Errorf("answers %v, want %v", got.answers, first.answers)
		}
	}
	for _, p := range files {
		if garbled.reads[p] != first.reads[p] {
			t.Errorf("with garbled signatures %s read %d times, want %d as without", p, garbled.reads[p], first.reads[p])
		}
	}
	if n := garbled.r.Unread(); n != 0 {
		t.Errorf("with garbled signatures %d files unread, want none", n)
	}
	// Another run's needles come in other rounds (an edit made other helpers): the kept
	// signatures, those of files parsed too, answer as the texts do. A file parsed for its
	// first mention of one round's needle may mention another's later in its text.
	other := slices.Clone(rounds)
	slices.Reverse(other)
	want, got := analyseIn(other, nil), analyseIn(other, func(p string) []byte { return kept[p] })
	if !slices.Equal(got.parsed, want.parsed) || !maps.Equal(got.answers, want.answers) {
		t.Errorf("needles in other rounds: parsed %v, answers %v; want %v, %v", got.parsed, got.answers, want.parsed, want.answers)
	}
	// A file parsed in a later round is read once, in that round, when its signature is
	// known; without, it is read in the first round too.
	twice := 0
	for _, p := range first.parsed {
		if kept[p] == nil {
			t.Errorf("%s parsed, but its signature was not kept", p)
		}
		if first.reads[p] > 1 {
			twice++
		}
		if second.reads[p] != 1 {
			t.Errorf("%s (parsed, its signature known) read %d times, want once", p, second.reads[p])
		}
	}
	if twice == 0 {
		t.Error("no file was read twice without signatures: the rounds exercise nothing")
	}
	unread := 0
	for _, p := range files {
		switch {
		case kept[p] == nil && second.reads[p] != first.reads[p]:
			t.Errorf("%s (no signature kept) read %d times, want %d as before", p, second.reads[p], first.reads[p])
		case kept[p] != nil && second.reads[p] > 0 && second.r.ByPath[p] == nil && second.r.sigs[p] == second.r.known[p]:
			t.Errorf("%s read but its kept signature still stands", p)
		case kept[p] != nil && second.reads[p] == 0:
			unread++
		}
	}
	if unread == 0 || unread != second.r.Unread() {
		t.Errorf("%d files not read with their signatures known, Unread says %d; want the same, above 0", unread, second.r.Unread())
	}
}

// TestReuse: a Result that reuses another's files takes a file of the same text as it was
// parsed there, and parses a file whose text is not that one.
func TestReuse(t *testing.T) {
	src := map[string]string{
		"a.py": "import torch\ntorch.cuda.empty_cache()\n",
		"b.py": "import torch\n\n\ndef f():\n    torch.cuda.empty_cache()\n",
	}
	read := func(p string) ([]byte, error) { return []byte(src[p]), nil }
	fset := token.NewFileSet()
	tried := NewResult([]string{"a.py", "b.py"}, read, fset, 1)
	if err := tried.ParseFiles(context.Background(), []string{"a.py", "b.py"}); err != nil {
		t.Fatal(err)
	}
	src["b.py"] += "\n\ndef g():\n    pass\n"
	r := NewResult([]string{"a.py", "b.py"}, read, fset, 1)
	r.Reuse(tried)
	if err := r.ParseMatching(context.Background(), []string{"empty_cache"}); err != nil {
		t.Fatal(err)
	}
	if r.Parsed != 2 || r.ByPath["a.py"] != tried.ByPath["a.py"] {
		t.Errorf("a.py, the same text: parsed anew (%d parsed)", r.Parsed)
	}
	if b := r.ByPath["b.py"]; b == nil || b == tried.ByPath["b.py"] || len(b.Functions) != 2 {
		t.Error("b.py, another text: not parsed anew")
	}
}
