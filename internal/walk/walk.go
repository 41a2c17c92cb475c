package walk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Kind is how a file is read.
type Kind string

const (
	Python   Kind = "python"   // .py, and any file named explicitly whatever its extension
	Stub     Kind = "stub"     // .pyi
	Notebook Kind = "notebook" // .ipynb
)

// File is one file to analyse.
type File struct {
	// Path is the file as the user would write it: the PATH it came from joined with its
	// path below that PATH (so "." gives "src/train.py").
	Path string
	// Abs is the cleaned absolute path; files are de-duplicated on it.
	Abs  string
	Kind Kind
	// Explicit is true when the file was named on the command line rather than found by
	// walking a directory.
	Explicit bool
	// Stated says Size and ModNs were taken while the walk listed the file's directory
	// (Options.Stat; Linux only): its size and modification time in nanoseconds.
	Stated      bool
	Size, ModNs int64
	// Repo is the nearest directory at or above the file, within the walked directory,
	// that holds a .git (a folder, or a file as in a submodule or a worktree): the
	// repository the file belongs to. "" when there is none, and for a file named
	// explicitly.
	Repo string
}

// Options control which files a walk keeps.
type Options struct {
	// Exclude replaces DefaultExclude when non-nil (the `exclude` setting; an empty,
	// non-nil slice excludes nothing). Patterns are read as described on Globs.
	Exclude []string
	// ExtendExclude adds patterns to Exclude (the `extend-exclude` setting, --exclude).
	ExtendExclude []string
	// Base anchors patterns that contain a slash: the configuration file's directory.
	// Empty means the working directory.
	Base string
	// RespectGitignore skips files ignored by git (.gitignore files at every level,
	// .git/info/exclude, the global excludes file) and by .ignore files.
	RespectGitignore bool
	// ForceExclude applies Exclude and ExtendExclude to files and directories named
	// explicitly too, which otherwise are always analysed. pre-commit passes every staged
	// file by name, so a hook needs it for the exclusions to hold.
	ForceExclude bool
	// Jobs is how many directories are read at once (GOMAXPROCS when 0).
	Jobs int
	// Stat asks for the walked files' size and modification time (File.Stated), taken
	// relative to the directory being listed: cheaper than a stat of each path afterwards.
	Stat bool
}

// defaultExclude follows ruff's default `exclude`, plus __pycache__ and .ipynb_checkpoints
// copies of notebooks, which would otherwise be reported twice.
var defaultExclude = []string{
	".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
	".mypy_cache", ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache",
	".svn", ".tox", ".venv", ".vscode", "__pycache__", "__pypackages__", "_build",
	"buck-out", "build", "dist", "node_modules", "site-packages", "venv",
}

// DefaultExclude returns the patterns excluded when the `exclude` setting is not given.
func DefaultExclude() []string {
	return append([]string(nil), defaultExclude...)
}

// kindOf maps an extension to a Kind; ok is false for files a directory walk skips.
func kindOf(name string) (Kind, bool) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".py":
		return Python, true
	case ".pyi":
		return Stub, true
	case ".ipynb":
		return Notebook, true
	}
	return Python, false
}

// Files expands roots (files or directories; none means ".") into the files to analyse,
// sorted by Path and de-duplicated. A root that does not exist, or an invalid pattern,
// is an error. Trouble inside a walk (an unreadable directory or ignore file) is
// returned in warnings and the walk goes on.
func Files(roots []string, opts Options) (files []File, warnings []error, err error) {
	w, err := newWalker(opts)
	if err != nil {
		return nil, nil, err
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	for _, root := range roots {
		if err := w.root(root); err != nil {
			return nil, w.warnings, err
		}
	}
	return w.result(), w.warnings, nil
}

type walker struct {
	opts     Options
	excludes *Globs
	roots    int            // roots met so far
	seen     map[string]int // Abs -> index in files, once a second root is met
	files    []File
	warnings []error
}

func newWalker(opts Options) (*walker, error) {
	base := opts.Base
	if base == "" {
		base = "."
	}
	patterns := opts.Exclude
	if patterns == nil {
		patterns = defaultExclude
	}
	patterns = append(append([]string(nil), patterns...), opts.ExtendExclude...)
	g, err := CompileGlobs(base, patterns)
	if err != nil {
		return nil, fmt.Errorf("exclude: %w", err)
	}
	return &walker{opts: opts, excludes: g}, nil
}

func (w *walker) warn(err error) { w.warnings = append(w.warnings, err) }

// add keeps f, once: a file two roots reach is kept as the first found it, explicit when
// either named it. Within one root no file is met twice, so the table of those seen is made
// only when a second root comes (keeping it for a single root was a warm run's largest serial
// cost after the walk itself).
func (w *walker) add(f File) {
	if w.roots > 1 {
		if w.seen == nil {
			w.seen = make(map[string]int, len(w.files))
			for i, g := range w.files {
				w.seen[g.Abs] = i
			}
		}
		if i, ok := w.seen[f.Abs]; ok {
			w.files[i].Explicit = w.files[i].Explicit || f.Explicit
			return
		}
		w.seen[f.Abs] = len(w.files)
	}
	w.files = append(w.files, f)
}

func (w *walker) result() []File {
	sort.Slice(w.files, func(i, j int) bool { return w.files[i].Path < w.files[j].Path })
	return w.files
}

// Named is the report scope of a file an editor passes on standard input under name
// (--stdin-filename): that one file, which need not exist on disk, or none when
// ForceExclude is set and the exclude patterns match it, as they would match it on disk.
func Named(name string, opts Options) ([]File, error) {
	w, err := newWalker(opts)
	if err != nil {
		return nil, err
	}
	clean := filepath.Clean(name)
	abs, err := filepath.Abs(clean)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", name, err)
	}
	if opts.ForceExclude && w.excludedExplicit(abs) {
		return nil, nil
	}
	kind, _ := kindOf(clean)
	return []File{{Path: clean, Abs: abs, Kind: kind, Explicit: true}}, nil
}

func (w *walker) root(root string) error {
	w.roots++
	clean := filepath.Clean(root)
	abs, err := filepath.Abs(clean)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", root, err)
	}
	// Stat, not Lstat: a symlink the user names is followed, as the user asked for it.
	fi, err := os.Stat(clean)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: %w", root, err)
	}
	if w.opts.ForceExclude && w.excludedExplicit(abs) {
		return nil
	}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			w.warn(fmt.Errorf("%s: not a regular file, skipped", root))
			return nil
		}
		kind, _ := kindOf(clean)
		w.add(File{Path: clean, Abs: abs, Kind: kind, Explicit: true})
		return nil
	}
	var st *ignoreState
	var comps []string
	if w.opts.RespectGitignore {
		st, _ = newIgnoreState(abs, w.warn)
		comps = components(st.root, abs)
		if len(comps) > 0 && st.ignored(comps, true) {
			// The user named an ignored directory: walk it, honouring only the
			// ignore files inside it.
			st = &ignoreState{root: abs, files: st.files}
			comps = nil
		}
	}
	w.tree(abs, clean, comps, st, w.opts.Jobs)
	return nil
}

// excludedExplicit applies the exclude patterns to an explicitly named path and to its
// ancestors below Base, so that "legacy" also excludes legacy/old.py.
func (w *walker) excludedExplicit(abs string) bool {
	p := filepath.ToSlash(abs)
	if w.excludes.matchAbs(p) {
		return true
	}
	for d := path.Dir(p); ; d = path.Dir(d) {
		rel, inside := relSlash(w.excludes.base, d)
		if !inside || rel == "." {
			return false
		}
		if w.excludes.matchAbs(d) {
			return true
		}
	}
}

// components splits target's path below root into names ("" root gives none).
func components(root, target string) []string {
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == "." {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// A directory's listing, its ignore files and the checks of its entries are independent of
// every other directory's, so the directories of a walk are read on several goroutines (the
// walk was a warm run's longest serial part: 80 ms of 250 on an 11,800-file tree). What
// each finds is kept in a tree of dirNodes, put together once all are read, in the order a
// walk on one goroutine meets it: the result and its warnings do not depend on the timing.

// dirNode is one directory of a walk and what reading it found: its own warnings (the
// listing's, its ignore files'), then its entries in listing order, each a file kept or a
// subdirectory walked.
type dirNode struct {
	abs, display string
	repo         bool // the directory holds a .git
	comps        []string
	st           *ignoreState
	warnings     []error
	entries      []dirEntry
}

// dirent is one name of a directory's listing and its type bits (fs.FileMode.Type), with
// its size and modification time when readDir was asked to stat it (stated).
type dirent struct {
	name        string
	typ         fs.FileMode
	stated      bool
	size, modNs int64
}

// dirEntry is a file (kid nil) or a subdirectory (kid).
type dirEntry struct {
	file File
	kid  *dirNode
}

// tree walks the directory top (abs, shown as display) on jobs goroutines (GOMAXPROCS when
// jobs <= 0) and adds what it finds to w, in a one-goroutine walk's order.
func (w *walker) tree(abs, display string, comps []string, st *ignoreState, jobs int) {
	top := &dirNode{abs: abs, display: display, comps: comps, st: st}
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	var (
		mu      sync.Mutex
		more    = sync.NewCond(&mu)
		queue   = []*dirNode{top}
		pending = 1 // directories queued or being read
		failure any
		wg      sync.WaitGroup
	)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, dirBufSize)
			defer func() {
				// A bug in one would end the process: raised again in the caller instead.
				if v := recover(); v != nil {
					mu.Lock()
					if failure == nil {
						failure = fmt.Sprintf("%v\n%s", v, debug.Stack())
					}
					queue, pending = nil, 0
					more.Broadcast()
					mu.Unlock()
				}
			}()
			for {
				mu.Lock()
				for len(queue) == 0 && pending > 0 {
					more.Wait()
				}
				if len(queue) == 0 {
					mu.Unlock()
					return
				}
				d := queue[len(queue)-1]
				queue = queue[:len(queue)-1]
				mu.Unlock()
				kids := w.read(d, buf)
				mu.Lock()
				if failure == nil {
					queue = append(queue, kids...)
					pending += len(kids) - 1
				}
				if pending == 0 {
					more.Broadcast() // the walk is done: every waiting goroutine returns
				} else {
					// This goroutine takes one of the new directories itself; wake one
					// waiting goroutine per other one, not all of them for each.
					for range len(kids) - 1 {
						more.Signal()
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if failure != nil {
		panic(failure)
	}
	w.files = slices.Grow(w.files, top.count())
	w.gather(top, "")
}

// count is the number of files below d.
func (d *dirNode) count() int {
	n := 0
	for _, e := range d.entries {
		if e.kid != nil {
			n += e.kid.count()
		} else {
			n++
		}
	}
	return n
}

// gather adds d's warnings and entries to w, depth first; repo is the repository of the
// directory above d (File.Repo).
func (w *walker) gather(d *dirNode, repo string) {
	if d.repo {
		repo = d.abs
	}
	w.warnings = append(w.warnings, d.warnings...)
	for _, e := range d.entries {
		if e.kid != nil {
			w.gather(e.kid, repo)
		} else {
			e.file.Repo = repo
			w.add(e.file)
		}
	}
}

// read lists the directory d, keeps its files and returns its subdirectories to walk (each
// also among d.entries). It touches nothing but d and the immutable walker settings, so
// directories are read concurrently.
func (w *walker) read(d *dirNode, buf []byte) []*dirNode {
	warn := func(err error) { d.warnings = append(d.warnings, err) }
	var stat func(name string) bool
	if w.opts.Stat {
		stat = func(name string) bool { _, ok := kindOf(name); return ok }
	}
	entries, err := readDir(d.abs, buf, stat)
	if err != nil {
		// What was read before the error is kept; keep going with that.
		warn(fmt.Errorf("read directory %s: %w", d.display, unwrapPath(err)))
	}
	st := d.st
	if st != nil {
		// A listing cut short may miss the ignore files: then try them all.
		st = st.withFiles(d.abs, d.comps, entries, err == nil, warn)
	}
	ign := st.forDir(d.comps)
	var kids []*dirNode
	for _, e := range entries {
		name, t := e.name, e.typ
		if name == ".git" && (t.IsDir() || t.IsRegular()) {
			d.repo = true
		}
		switch {
		case t&fs.ModeSymlink != 0:
			// Never followed: a link either points inside the tree, which the walk
			// reaches anyway, or outside it, where cachelint was not asked to look;
			// and a link cycle cannot trap a walk that does not follow links.
			continue
		case t.IsDir():
			if name == ".git" {
				continue
			}
			childAbs := joinName(d.abs, name)
			if w.excludes.matchAbs(filepath.ToSlash(childAbs)) {
				continue
			}
			if ign.ignored(name, true) {
				continue
			}
			kid := &dirNode{abs: childAbs, display: joinName(d.display, name), st: st,
				comps: append(d.comps[:len(d.comps):len(d.comps)], name)} //nolint:gocritic // a fresh copy per child, on purpose
			d.entries = append(d.entries, dirEntry{kid: kid})
			kids = append(kids, kid)
		case t.IsRegular():
			kind, ok := kindOf(name)
			if !ok {
				continue
			}
			childAbs := joinName(d.abs, name)
			if w.excludes.matchAbs(filepath.ToSlash(childAbs)) || ign.ignored(name, false) {
				continue
			}
			d.entries = append(d.entries, dirEntry{file: File{Path: joinName(d.display, name), Abs: childAbs, Kind: kind,
				Stated: e.stated, Size: e.size, ModNs: e.modNs}})
		}
	}
	// Pushed last, popped first: the first subdirectory is read next, as a walk in order would.
	slices.Reverse(kids)
	return kids
}

// joinName is filepath.Join(dir, name) for a clean dir and an entry's name, without Join's
// cleaning (a tenth of a walk's time when done for every entry).
func joinName(dir, name string) string {
	switch {
	case runtime.GOOS == "windows":
		return filepath.Join(dir, name) // a volume's current directory ("C:") joins without a separator
	case dir == ".":
		return name
	case strings.HasSuffix(dir, string(filepath.Separator)):
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// isPackage reports whether the directory d is a Python package (holds an __init__.py).
func isPackage(d string) bool {
	_, err := os.Lstat(filepath.Join(d, "__init__.py"))
	return err == nil
}

// projectMarkers make a directory the project root (SPEC §6).
var projectMarkers = []string{"pyproject.toml", "setup.cfg", "setup.py", ".git"}

// FindProjectRoot returns the nearest directory at or above path (a file or a directory)
// holding pyproject.toml, setup.cfg, setup.py or .git: the project cachelint indexes to
// resolve helpers. A setup.py beside an __init__.py is a package's module or the build
// script of an extension inside a package (lightning's trainer/setup.py, fairseq's
// modules/dynamicconv_layer/setup.py), not a project's, and does not count. With none up
// to the filesystem root it returns path's own directory. The result is absolute.
func FindProjectRoot(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	start := abs
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		start = filepath.Dir(abs)
	}
	for d := start; ; {
		for _, m := range projectMarkers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil && (m != "setup.py" || !isPackage(d)) {
				return d
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return start
		}
		d = parent
	}
}
