package analyzers

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cachelint/cachelint/internal/allocconf"
	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/parallel"
	"github.com/cachelint/cachelint/pyparse"
	"github.com/cachelint/cachelint/rules"
)

// AllocConf reports PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF settings that PyTorch
// never applies: set after CUDA was initialised (CL010), rejected or misread by PyTorch's
// parser (CL011), or accepted but without effect (CL012). The PyTorch knowledge lives in
// internal/allocconf; this analyzer finds the settings and the program around them.
var AllocConf = &driver.Analyzer{
	Name:     "allocconf",
	Doc:      "reports allocator config settings made too late (CL010), invalid (CL011) or without effect (CL012)",
	Requires: []*driver.Analyzer{CacheCalls},
	Run:      runAllocConf,
}

const (
	helpAfterInit = "set the variable before `import torch`, at the top of the entry-point module, or outside Python (`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python train.py`)"
	helpBackend   = "choose the backend before `import torch` runs (top of the entry-point module, before any import that imports torch), or outside Python"
	fractionCall  = "set_per_process_memory_fraction"
)

// confSetting is one place the program sets an allocator config variable.
type confSetting struct {
	file *pyparse.File
	// at is the assignment, call or dict pair that sets it; CL010 reports there.
	at      *pyparse.Node
	varName string
	// value is the expression assigned (nil when the value is not visible).
	value *pyparse.Node
	// environ: the setting changes the process environment (os.environ, os.putenv), so
	// when it runs matters (CL010). A dict handed to subprocess gets CL011/CL012 only.
	environ bool
	// augmented: `+=`, whose right side is only the tail of the value.
	augmented bool
	lit       *litValue
	cfg       *allocconf.Config
	probs     []allocconf.Problem
}

func runAllocConf(pass *driver.Pass) (any, error) {
	g := pass.ResultOf[CacheCalls].(*CallGraph)
	var needFraction []*confSetting
	files, mentions := g.configFiles()
	for i, f := range files {
		if !mentions[i] {
			continue // sets nothing: analysedSettings would find nothing
		}
		settings := analysedSettings(g, f)
		for _, s := range settings {
			for _, p := range s.probs {
				reportProblem(pass, s, p)
			}
			if s.needsFraction() {
				needFraction = append(needFraction, s)
			}
		}
		checkOrder(pass, g, f, settings)
	}
	if len(needFraction) > 0 {
		reportWithoutFraction(pass, g, needFraction)
	}
	return nil, nil
}

// analysedSettings finds f's settings and parses the literal values among them.
func analysedSettings(g *CallGraph, f *pyparse.File) []*confSetting {
	settings := findSettings(g, f)
	for _, s := range settings {
		if s.value == nil || s.augmented {
			continue
		}
		lit := literalValue(f, s.value)
		if lit == nil || !lit.literal {
			continue
		}
		s.lit = lit
		s.cfg, s.probs = allocconf.ParseSegments(lit.segs)
	}
	return settings
}

// needsFraction reports a valid garbage_collection_threshold, which acts only with a
// per-process memory fraction set somewhere in the program.
func (s *confSetting) needsFraction() bool {
	if s.cfg == nil {
		return false
	}
	for _, p := range s.probs {
		if p.Rule == rules.CL011 && p.Key == "garbage_collection_threshold" {
			return false
		}
	}
	_, _, ok := s.cfg.NeedsMemoryFraction()
	return ok
}

// fractionNeedles are what a file must mention to matter to a garbage_collection_threshold
// setting's program: a set_per_process_memory_fraction call, or an import of the setting's
// module. CacheCalls parses those files before it hands the parse on.
func fractionNeedles(g *CallGraph) []string {
	var needles []string
	files, mentions := g.configFiles()
	for i, f := range files {
		if !mentions[i] {
			continue
		}
		for _, s := range analysedSettings(g, f) {
			if s.needsFraction() {
				if needles == nil {
					needles = []string{fractionCall}
				}
				needles = append(needles, moduleStem(f.Path))
			}
		}
	}
	return needles
}

// configFiles are the graph's parsed files and, for each, whether its text names an
// allocator config variable (mentionsConfigVar): read once per graph, on every CPU
// (fractionNeedles and runAllocConf each read every parsed text on one goroutine: 10-20 ms
// of an edited run over the 13 installed packages of bench/installed).
func (g *CallGraph) configFiles() ([]*pyparse.File, []bool) {
	files := g.Project.res.Files
	if len(g.configMentions) != len(files) { // files are only ever added to a parse
		g.configMentions = make([]bool, len(files))
		parallel.For(len(files), g.Project.jobs, func(_, i int) { g.configMentions[i] = mentionsConfigVar(files[i].Src) })
	}
	return files, g.configMentions
}

// mentionsConfigVar reports whether src holds the name of an allocator config variable, as
// every setting findSettings reads spells it (the prefilter parsed the file for the name as
// a word, or for something else: most parsed files set nothing). The part the names share
// is searched first, once (configVarNames).
func mentionsConfigVar(src []byte) bool {
	common, names := configVarNames()
	if len(common) > 0 && !bytes.Contains(src, common) {
		return false
	}
	for _, name := range names {
		if bytes.Contains(src, name) {
			return true
		}
	}
	return false
}

// configVarNames are the allocator config variables' names, and the part of them every one
// holds ("ALLOC_CONF"; nil if some day one does not).
var configVarNames = sync.OnceValues(func() (common []byte, names [][]byte) {
	common = []byte("ALLOC_CONF")
	for _, v := range allocconf.EnvVars() {
		names = append(names, []byte(v.Name))
		if !strings.Contains(v.Name, string(common)) {
			common = nil
		}
	}
	return common, names
})

// plainString returns the text of a string literal with no interpolation and no bytes
// prefix (a key such as "PYTORCH_CUDA_ALLOC_CONF").
func plainString(f *pyparse.File, n *pyparse.Node) (string, bool) {
	if n == nil || n.Kind() != "string" {
		return "", false
	}
	lv := &litValue{}
	if !lv.addString(f, n) {
		return "", false
	}
	var b strings.Builder
	for _, s := range lv.segs {
		if s.Hole {
			return "", false
		}
		b.WriteString(s.Text)
	}
	return b.String(), true
}

func positionalArgs(args *pyparse.Node) []*pyparse.Node {
	var out []*pyparse.Node
	if args == nil || args.Kind() != "argument_list" {
		return nil
	}
	for _, a := range args.NamedChildren() {
		if a.Kind() == "comment" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// findSettings lists every place f sets an allocator config variable:
// `X["PYTORCH_CUDA_ALLOC_CONF"] = v` (and `+=`), `os.environ.update({...})` or
// `update(PYTORCH_CUDA_ALLOC_CONF=v)`, `setdefault` / `putenv` / `setenv` calls, and
// any dict literal with the variable as a key.
func findSettings(g *CallGraph, f *pyparse.File) []*confSetting {
	if !mentionsConfigVar(f.Src) {
		return nil
	}
	var out []*confSetting
	qualify := func(n *pyparse.Node) string { return f.Qualify(pyparse.DottedName(n, f.Src)) }
	f.Root.Walk(func(n *pyparse.Node) bool {
		switch n.Kind() {
		case "assignment", "augmented_assignment":
			left := n.ChildByField("left")
			if left == nil || left.Kind() != "subscript" {
				return true
			}
			key, ok := plainString(f, left.ChildByField("subscript"))
			if !ok || !allocconf.IsConfigVar(key) {
				return true
			}
			out = append(out, &confSetting{
				file: f, at: n, varName: key, value: n.ChildByField("right"),
				environ:   qualify(left.ChildByField("value")) == "os.environ",
				augmented: n.Kind() == "augmented_assignment",
			})
		case "pair":
			key, ok := plainString(f, n.ChildByField("key"))
			if !ok || !allocconf.IsConfigVar(key) {
				return true
			}
			environ := false
			if d := n.Parent(); d != nil && d.Kind() == "dictionary" && d.Parent() != nil && d.Parent().Kind() == "argument_list" {
				if call := d.Parent().Parent(); call != nil && call.Kind() == "call" {
					if c := f.CallOf(call); c != nil && g.Project.qualifiedCallee(f, c) == "os.environ.update" {
						environ = true
					}
				}
			}
			out = append(out, &confSetting{file: f, at: n, varName: key, value: n.ChildByField("value"), environ: environ})
		case "call":
			c := f.CallOf(n)
			if c == nil {
				return true
			}
			// Qualifying a dotted callee rewrites its head (an import's alias, a name bound
			// to a module or to `os.environ`), never its last name: a call whose last name is
			// none of those below sets nothing, and is not qualified (the walk meets every
			// call of the file, and qualifying one resolves names).
			if i := strings.LastIndexByte(c.Callee, '.'); i >= 0 && !settingCalls[c.Callee[i+1:]] {
				return true
			}
			q := g.Project.qualifiedCallee(f, c)
			last := q[strings.LastIndex(q, ".")+1:]
			switch last {
			case "update", "dict":
				for _, a := range positionalArgs(c.Args) {
					if a.Kind() != "keyword_argument" {
						continue
					}
					name := a.ChildByField("name").Text(f.Src)
					if allocconf.IsConfigVar(name) {
						out = append(out, &confSetting{file: f, at: a, varName: name, value: a.ChildByField("value"), environ: q == "os.environ.update"})
					}
				}
			case "setdefault", "putenv", "setenv":
				args := positionalArgs(c.Args)
				if len(args) < 2 || args[0].Kind() == "keyword_argument" || args[1].Kind() == "keyword_argument" {
					return true
				}
				key, ok := plainString(f, args[0])
				if !ok || !allocconf.IsConfigVar(key) {
					return true
				}
				out = append(out, &confSetting{
					file: f, at: n, varName: key, value: args[1],
					environ: q == "os.environ.setdefault" || q == "os.putenv",
				})
			}
		}
		return true
	})
	return out
}

// settingCalls are the last names of the calls findSettings reads a setting from.
var settingCalls = map[string]bool{"update": true, "dict": true, "setdefault": true, "putenv": true, "setenv": true}

// litValue is a config value as far as the source shows it: literal parts and holes, with
// where each byte of the value comes from, so a problem can point into the literal.
type litValue struct {
	segs []allocconf.Segment
	// src is the source offset of each value byte; -1 where the byte comes from an escape
	// sequence and so has no one source byte.
	src     []int
	literal bool
}

func (lv *litValue) add(text string, srcStart int, exact, hole bool) {
	if text == "" {
		return
	}
	lv.segs = append(lv.segs, allocconf.Segment{Text: text, Hole: hole})
	for i := range len(text) {
		if exact {
			lv.src = append(lv.src, srcStart+i)
		} else {
			lv.src = append(lv.src, -1)
		}
	}
	lv.literal = lv.literal || !hole
}

func (lv *litValue) hole(f *pyparse.File, n *pyparse.Node) {
	lv.add(n.Text(f.Src), int(n.Start), true, true)
}

// span maps a problem's byte range in the value to source offsets; ok is false when an
// end falls on an escape sequence or outside the value.
func (lv *litValue) span(off, end int) (start, stop int, ok bool) {
	if off < 0 || end <= off || end > len(lv.src) {
		return 0, 0, false
	}
	s, e := lv.src[off], lv.src[end-1]
	if s < 0 || e < s {
		return 0, 0, false
	}
	return s, e + 1, true
}

// literalValue reads a value expression: a string, an f-string (replacement fields are
// holes), implicit and `+` concatenation; any other operand is a hole. nil when the
// expression holds no string literal at all.
func literalValue(f *pyparse.File, n *pyparse.Node) *litValue {
	lv := &litValue{}
	var flatten func(n *pyparse.Node)
	flatten = func(n *pyparse.Node) {
		switch n.Kind() {
		case "parenthesized_expression":
			if inner := withoutComments(n.NamedChildren()); len(inner) == 1 {
				flatten(inner[0])
				return
			}
		case "binary_operator":
			if n.HasChild("+") {
				flatten(n.ChildByField("left"))
				flatten(n.ChildByField("right"))
				return
			}
		case "concatenated_string":
			for _, s := range withoutComments(n.NamedChildren()) {
				flatten(s)
			}
			return
		case "string":
			if lv.addString(f, n) {
				return
			}
		}
		lv.hole(f, n)
	}
	if n == nil {
		return nil
	}
	flatten(n)
	if !lv.literal {
		return nil
	}
	return lv
}

func withoutComments(ns []*pyparse.Node) []*pyparse.Node {
	var out []*pyparse.Node
	for _, n := range ns {
		if n.Kind() != "comment" {
			out = append(out, n)
		}
	}
	return out
}

// addString appends one string literal; false (having added nothing) for a bytes
// literal, which is no config.
func (lv *litValue) addString(f *pyparse.File, n *pyparse.Node) bool {
	// The prefix is what comes before the opening quote (the tree keeps no string_start).
	t := n.Text(f.Src)
	prefix := strings.ToLower(t[:max(0, strings.IndexAny(t, `"'`))])
	if strings.Contains(prefix, "b") {
		return false
	}
	raw := strings.Contains(prefix, "r")
	for c := range n.Children() {
		switch c.Kind() {
		case "string_content":
			pos := c.Start
			for e := range c.Children() {
				if e.Kind() != "escape_sequence" && e.Kind() != "escape_interpolation" {
					continue
				}
				lv.add(string(f.Src[pos:e.Start]), int(pos), true, false)
				text := e.Text(f.Src)
				switch {
				case raw:
					lv.add(text, int(e.Start), true, false)
				case e.Kind() == "escape_interpolation":
					lv.add(text[:1], int(e.Start), false, false)
				default:
					if dec, ok := decodeEscape(text); ok {
						lv.add(dec, int(e.Start), false, false)
					} else {
						lv.add(text, int(e.Start), true, true)
					}
				}
				pos = e.End
			}
			lv.add(string(f.Src[pos:c.End]), int(pos), true, false)
		case "interpolation":
			lv.hole(f, c)
		}
	}
	return true
}

// decodeEscape decodes one Python string escape; ok is false for \N{...}, whose
// character cachelint does not look up.
func decodeEscape(s string) (string, bool) {
	if len(s) < 2 || s[0] != '\\' {
		return s, true
	}
	switch c := s[1]; c {
	case '\n', '\r':
		return "", true // line continuation
	case '\\', '\'', '"':
		return s[1:2], true
	case 'a':
		return "\a", true
	case 'b':
		return "\b", true
	case 'f':
		return "\f", true
	case 'n':
		return "\n", true
	case 'r':
		return "\r", true
	case 't':
		return "\t", true
	case 'v':
		return "\v", true
	case 'x', 'u', 'U':
		v, err := strconv.ParseUint(s[2:], 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) {
			return s, true
		}
		return string(rune(v)), true
	case 'N':
		return "", false
	default:
		if c >= '0' && c <= '7' {
			v, err := strconv.ParseUint(s[1:], 8, 32)
			if err == nil {
				return string(rune(v)), true
			}
		}
	}
	return s, true
}

func reportProblem(pass *driver.Pass, s *confSetting, p allocconf.Problem) {
	f := s.file
	start, end, ok := s.lit.span(p.Offset, p.End)
	if !ok {
		start, end = int(s.value.Start), int(s.value.End)
	}
	label := "PyTorch rejects or misreads this"
	if p.Rule == rules.CL012 {
		label = "accepted, but has no effect"
	}
	pass.Report(driver.Diagnostic{
		Pos: f.Pos(start), End: f.Pos(end), Code: p.Rule,
		Message: s.varName + ": " + p.Text(),
		Label:   label, Help: problemHelp(p), Function: functionName(f.EnclosingFunction(s.at)),
		Snippet: snippet(f, s.at.Statement()),
	})
}

// problemHelp says what to do about one problem, from its rule and the key's value form.
func problemHelp(p allocconf.Problem) string {
	m := p.Message
	if p.Rule == rules.CL012 {
		switch {
		case strings.Contains(m, "per-process memory fraction"):
			return "call torch.cuda.set_per_process_memory_fraction() with a fraction below 1 (or, on PyTorch >= 2.10, add per_process_memory_fraction below 1), or drop garbage_collection_threshold"
		case strings.Contains(m, "no effect with backend"):
			return "drop the native-allocator options, or use backend:native if you need them"
		case strings.Contains(m, "set again later"):
			return "delete the earlier occurrence; only the last one counts"
		case strings.Contains(m, "default"):
			return "drop it: it restates the default"
		case strings.Contains(m, "expandable_segments:True"):
			return "add expandable_segments:True, or drop the reserve option"
		case strings.Contains(m, "roundup_power2_divisions"), strings.Contains(m, "entry"), strings.Contains(m, "interval"):
			return "drop the entry that a later one overrides"
		}
		return "remove the option, or give it what it needs to act (`cachelint explain CL012`)"
	}
	switch {
	case strings.Contains(m, "not an allocator option before PyTorch"):
		return "require a PyTorch release that knows this option, or drop it where the program must run on older releases"
	case strings.HasPrefix(m, "unknown allocator option"):
		return "spell the option as PyTorch does; `cachelint explain CL011` lists every option and the releases that accept it"
	case p.Key == "" || strings.Contains(m, "separate options") || strings.Contains(m, "'='"):
		return "write key:value pairs separated by ',' (for example expandable_segments:True,max_split_size_mb:128)"
	}
	k, _ := allocconf.LookupKey(p.Key)
	switch k.Form {
	case allocconf.FormBool:
		return "write True or False, capitalised exactly so"
	case allocconf.FormMB:
		return "give a whole number of MiB, at least 21 to work on every PyTorch release"
	case allocconf.FormGCThreshold:
		return "use a number strictly between 0 and 1, such as 0.8"
	case allocconf.FormFraction:
		return "use a number between 0 and 1"
	case allocconf.FormDivisions:
		return "use a power of two, or a list such as [256:1,512:2,>:4] with power-of-two intervals in MiB"
	case allocconf.FormBackend:
		return "use native or cudaMallocAsync, spelt exactly so"
	case allocconf.FormThreads:
		return "use a power of two no larger than 128"
	case allocconf.FormPositiveInt:
		return "use a whole number greater than 0"
	case allocconf.FormReserve, allocconf.FormReserveByClass:
		return "give a fraction of device memory (0.5) or a size in GiB with a G suffix (40G)"
	}
	return "fix the value as the message says; `cachelint explain CL011` lists the accepted forms"
}

// reportWithoutFraction reports garbage_collection_threshold settings of programs that set
// no per-process memory fraction. The program is the setting's file and every project
// file connected to it by imports, in either direction (CacheCalls parsed the files that
// call set_per_process_memory_fraction or import the setting's module: fractionNeedles).
func reportWithoutFraction(pass *driver.Pass, g *CallGraph, settings []*confSetting) {
	res := g.Project.res
	adj := map[*pyparse.File][]*pyparse.File{}
	for _, f := range res.Files {
		for _, t := range importedFiles(g, f) {
			adj[f] = append(adj[f], t)
			adj[t] = append(adj[t], f)
		}
	}
	setsFraction := map[*pyparse.File]bool{}
	for _, f := range res.Files {
		setsFraction[f] = callsMemoryFraction(g, f)
	}
	for _, s := range settings {
		found := false
		seen := map[*pyparse.File]bool{s.file: true}
		queue := []*pyparse.File{s.file}
		for len(queue) > 0 && !found {
			f := queue[0]
			queue = queue[1:]
			found = setsFraction[f]
			for _, t := range adj[f] {
				if !seen[t] {
					seen[t] = true
					queue = append(queue, t)
				}
			}
		}
		for _, p := range s.cfg.ProgramProblems(allocconf.ProgramContext{SetsMemoryFraction: found}) {
			reportProblem(pass, s, p)
		}
	}
}

// moduleStem is the name other modules import a file by: "train" for train.py, the
// package name for an __init__.py.
func moduleStem(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if base == "__init__" {
		return filepath.Base(filepath.Dir(path))
	}
	return base
}

// importedFiles resolves f's imports to the project's parsed files.
func importedFiles(g *CallGraph, f *pyparse.File) []*pyparse.File {
	var out []*pyparse.File
	res := g.Project.res
	for _, imp := range f.Imports {
		prefix := strings.Repeat(".", imp.Level)
		var mods []string
		if imp.Name != "" {
			// `from pkg import mod` may name a submodule; otherwise it names pkg's member.
			sub := imp.Name
			if imp.Module != "" {
				sub = imp.Module + "." + imp.Name
			}
			mods = append(mods, prefix+sub)
			if imp.Module != "" {
				mods = append(mods, prefix+imp.Module)
			}
		} else {
			mods = append(mods, imp.Module)
		}
		for _, m := range mods {
			if p := g.Project.moduleFile(f, m); p != "" {
				if t := res.ByPath[p]; t != nil && t != f {
					out = append(out, t)
					break
				}
			}
		}
	}
	return out
}

// callsMemoryFraction reports whether f calls set_per_process_memory_fraction with a
// fraction that may be below 1 (a literal 1 or more sets no limit).
func callsMemoryFraction(g *CallGraph, f *pyparse.File) bool {
	for _, c := range f.Calls {
		q := g.Project.qualifiedCallee(f, c)
		if q != fractionCall && !strings.HasSuffix(q, "."+fractionCall) {
			continue
		}
		args := positionalArgs(c.Args)
		if len(args) > 0 && (args[0].Kind() == "float" || args[0].Kind() == "integer") {
			if v, err := strconv.ParseFloat(strings.ReplaceAll(args[0].Text(f.Src), "_", ""), 64); err == nil && v >= 1 {
				continue
			}
		}
		return true
	}
	return false
}

// orderWalker follows one file in program order: module statements in source order, and
// the body of each same-file function called from module level (the `main()` of an
// `if __name__ == "__main__":` block), one level deep.
type orderWalker struct {
	g        *CallGraph
	f        *pyparse.File
	settings map[*pyparse.Node][]*confSetting
	init     *pyparse.Node // the first call that initialises CUDA
	torch    *pyparse.Node // the first import of torch
	seen     map[*confSetting]bool
	inlined  map[*pyparse.Function]bool
	report   func(s *confSetting, backend bool)
}

func checkOrder(pass *driver.Pass, g *CallGraph, f *pyparse.File, settings []*confSetting) {
	w := &orderWalker{g: g, f: f, settings: map[*pyparse.Node][]*confSetting{}, seen: map[*confSetting]bool{}, inlined: map[*pyparse.Function]bool{}}
	for _, s := range settings {
		if s.environ {
			w.settings[s.at] = append(w.settings[s.at], s)
		}
	}
	if len(w.settings) == 0 {
		return
	}
	w.report = func(s *confSetting, backend bool) { reportOrder(pass, w, s, backend) }
	w.walk(f.Root, 0)
}

func (w *orderWalker) walk(n *pyparse.Node, depth int) {
	switch n.Kind() {
	case "function_definition", "class_definition", "lambda", "decorated_definition":
		return // defining runs nothing; called functions are followed at their call
	case "import_statement", "import_from_statement":
		if w.torch == nil && importsTorch(w.f, n) {
			w.torch = n
		}
	}
	for c := range n.Children() {
		w.walk(c, depth)
	}
	for _, s := range w.settings[n] {
		if w.seen[s] {
			continue
		}
		w.seen[s] = true
		switch {
		case w.init != nil:
			w.report(s, false)
		case w.torch != nil && s.cfg != nil && isAsyncBackend(s.cfg.Backend()):
			// Only a switch away from the default matters: native after the import is what
			// the import already chose.
			if b, ok := s.cfg.Get("backend"); ok && allocconf.KeyReadTime(b.Key) == allocconf.AtImport {
				w.report(s, true)
			}
		}
	}
	if n.Kind() != "call" {
		return
	}
	c := w.f.CallOf(n)
	if c == nil {
		return
	}
	if w.init == nil && w.initializesCUDA(c) {
		w.init = n
	}
	if depth == 0 {
		if r := w.g.Project.resolve(w.f, c); r != nil && r.file == w.f && r.fn.Body != nil && !w.inlined[r.fn] && !r.fn.Node.Contains(n) {
			w.inlined[r.fn] = true
			w.walk(r.fn.Body, depth+1)
		}
	}
}

func isAsyncBackend(b string) bool { return b == "cudaMallocAsync" || b == "hipMallocAsync" }

func importsTorch(f *pyparse.File, n *pyparse.Node) bool {
	for _, imp := range f.Imports {
		if imp.Node == n && (imp.Qualified == "torch" || strings.HasPrefix(imp.Qualified, "torch.") || imp.Module == "torch" || strings.HasPrefix(imp.Module, "torch.")) {
			return true
		}
	}
	return false
}

// initializesCUDA reports whether a call initialises CUDA: a torch.cuda call that does
// (internal/allocconf's table), `.cuda()`, `.to(<cuda device>)`, or any call with
// `device=<cuda device>` (tensor factories, modules).
func (w *orderWalker) initializesCUDA(c *pyparse.Call) bool {
	f := w.f
	q := w.g.Project.qualifiedCallee(f, c)
	if allocconf.KnownNotToInitializeCUDA(q) {
		return false
	}
	if _, ok := allocconf.InitializesCUDA(q); ok {
		return true
	}
	method := ""
	if c.Func != nil && c.Func.Kind() == "attribute" {
		if a := c.Func.ChildByField("attribute"); a != nil {
			method = a.Text(f.Src)
		}
	}
	if method == "cuda" {
		_, ok := allocconf.InitializesCUDA(".cuda")
		return ok
	}
	for _, a := range positionalArgs(c.Args) {
		if a.Kind() == "keyword_argument" {
			name := a.ChildByField("name").Text(f.Src)
			if name == "device" && w.isCUDADevice(a.ChildByField("value"), c.Node, 0) {
				return true
			}
			continue
		}
		if method == "to" && w.isCUDADevice(a, c.Node, 0) {
			return true
		}
	}
	return false
}

// isCUDADevice reports whether an expression names a CUDA device: "cuda:0",
// torch.device("cuda"), `"cuda" if torch.cuda.is_available() else "cpu"` (a program that
// uses the GPU when it has one), or a name assigned one of those.
func (w *orderWalker) isCUDADevice(n, at *pyparse.Node, depth int) bool {
	f := w.f
	if n == nil || depth > 3 {
		return false
	}
	switch n.Kind() {
	case "string":
		s, ok := plainString(f, n)
		return ok && allocconf.IsCUDADevice(s)
	case "parenthesized_expression":
		if inner := withoutComments(n.NamedChildren()); len(inner) == 1 {
			return w.isCUDADevice(inner[0], at, depth)
		}
	case "conditional_expression":
		parts := n.NamedChildren()
		return len(parts) == 3 && (w.isCUDADevice(parts[0], at, depth+1) || w.isCUDADevice(parts[2], at, depth+1))
	case "call":
		if f.Qualify(pyparse.DottedName(n.ChildByField("function"), f.Src)) == "torch.device" {
			if args := positionalArgs(n.ChildByField("arguments")); len(args) > 0 {
				return w.isCUDADevice(args[0], at, depth+1)
			}
		}
	case "identifier":
		name := n.Text(f.Src)
		scope := f.Root
		if fn := f.EnclosingFunction(at); fn != nil && fn.Body != nil {
			scope = fn.Body
		}
		for _, sc := range []*pyparse.Node{scope, f.Root} {
			for _, m := range f.AssignmentsTo(sc, name) {
				if l := m.ChildByField("left"); l != nil && l.Kind() == "identifier" && l.Text(f.Src) == name && w.isCUDADevice(m.ChildByField("right"), m, depth+1) {
					return true
				}
			}
			if sc == f.Root {
				break
			}
		}
	}
	return false
}

func reportOrder(pass *driver.Pass, w *orderWalker, s *confSetting, backend bool) {
	f := w.f
	var msg, label, help string
	var related driver.Related
	if backend {
		b, _ := s.cfg.Get("backend")
		msg = fmt.Sprintf("%s selects backend:%s after import torch at line %d: PyTorch chooses the allocator backend when torch is imported, so CUDA initialisation will fail with \"Allocator backend parsed at runtime != allocator backend parsed at load time\"", s.varName, b.Value, w.torch.Line())
		label, help = "too late: the backend is chosen at import torch", helpBackend
		related = driver.Related{Pos: f.Pos(int(w.torch.Start)), End: f.Pos(int(w.torch.End)), Message: "torch is imported here"}
	} else {
		msg = fmt.Sprintf("%s is set after CUDA was initialised at line %d (`%s`): PyTorch reads the allocator config once, when CUDA initialises, so this setting is silently ignored", s.varName, w.init.Line(), shortText(f, w.init))
		label, help = "ignored: CUDA is already initialised", helpAfterInit
		related = driver.Related{Pos: f.Pos(int(w.init.Start)), End: f.Pos(int(w.init.End)), Message: "CUDA is initialised here"}
	}
	pass.Report(driver.Diagnostic{
		Pos: f.Pos(int(s.at.Start)), End: f.Pos(int(s.at.End)), Code: rules.CL010, Message: msg,
		Related: []driver.Related{related},
		Label:   label, Help: help, Function: functionName(f.EnclosingFunction(s.at)), Snippet: snippet(f, s.at.Statement()),
	})
}
