package engine

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cachelint/cachelint/internal/parallel"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/internal/walk"
)

// A tree that holds several git repositories (a folder of clones, a repository with
// submodules) is analysed one repository at a time (unitsAtOnce), each as its own project:
// its files indexed from its own root, its helpers resolved among them, its findings those
// its own run would give. So `cachelint check ~/code` reports on each clone what `cachelint
// check` inside the clone, and a pre-commit run of one of its files (whose project root is
// the nearest directory with a .git, walk.FindProjectRoot), report; one clone's helper names
// do not send the prefilter into the others' files; and what a run holds in memory is one
// repository's analysis at a time, not the whole tree's. The cache keeps an entry per
// repository in the tree's cache folder.
//
// A repository's analysis indexes every file below its root, the repositories inside it
// too (a submodule is importable from the project that holds it), and reports the files
// whose nearest repository it is. A repository none of whose files is in report scope (a
// folder of clones with no Python of its own) is not analysed.

// repoUnits are the roots of the repositories the walk found at or below root (walk.File's
// Repo), sorted, with root first; root alone when there is no other.
func repoUnits(root string, walked []walk.File) []string {
	units := []string{root}
	seen := map[string]bool{root: true}
	for i := range walked {
		if r := walked[i].Repo; r != "" && !seen[r] && within(r, root) {
			seen[r] = true
			units = append(units, r)
		}
	}
	slices.Sort(units[1:])
	return units
}

// within reports whether the absolute path p lies below the directory dir.
func within(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == filepath.Separator && strings.HasPrefix(p, dir)
}

// unitsAbove calls visit for each directory of units (a set of directories below root)
// that abs lies below, the nearest first: a walk up abs's own directories, not a test of
// every repository for every file (a workspace of a thousand clones).
func unitsAbove(abs, root string, units map[string]bool, visit func(u string)) {
	for d := abs; ; {
		i := strings.LastIndexByte(d, filepath.Separator)
		if i <= len(root) {
			return
		}
		d = d[:i]
		if units[d] {
			visit(d)
		}
	}
}

// reportsIn reports whether a file in report scope lies below one of units (a set of
// directories below pr.root).
func (pr *project) reportsIn(units map[string]bool) bool {
	for i, path := range pr.paths {
		found := false
		if pr.reported(path) {
			unitsAbove(pr.walked[i].Abs, pr.root, units, func(string) { found = true })
		}
		if found {
			return true
		}
	}
	return false
}

// unitsAtOnce is how many repositories are analysed at the same time by a run on jobs
// goroutines (--jobs; 0: one per CPU): one below 16, where one repository's analysis keeps
// them busy and memory stays one repository's; more from 16, where one small repository's
// steps on one goroutine leave most cores idle.
// The 15-project tree of clones, 16 cores (cold, 5 runs, medians): one at a time 2.97 s
// and 147 MB, two 1.81 s and 252 MB, four 1.46 s and 313 MB; as one project it took 2.3 s
// and 436 MB.
var unitsAtOnce = func(jobs int) int {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	return max(1, jobs/8)
}

// runUnits analyses each repository of units (repoUnits) as a project of its own and puts
// what they report into out, in the repositories' order whatever order they ran in. What
// each analysis held (its trees and texts) is let go once it is done.
func (pr *project) runUnits(ctx context.Context, opts Options, units []string, start time.Time, out *Result) error {
	subs := make([]*project, len(units))
	for i, u := range units {
		subs[i] = &project{cwd: pr.cwd, root: u, cfg: pr.cfg, an: pr.an, stdin: pr.stdin, stdinPath: pr.stdinPath,
			sources: map[string][]byte{}, nb: map[string]*notebookInfo{}, malformed: map[string][]string{}, report: map[string]bool{}}
	}
	byRoot := make(map[string]*project, len(units))
	below := make(map[string]bool, len(units))
	for _, sub := range subs {
		byRoot[sub.root] = sub
		below[sub.root] = sub.root != pr.root
	}
	for i, path := range pr.paths {
		f := pr.walked[i]
		reported := pr.reported(path)
		// A repository indexes the files below its root, its own or not, and reports those
		// whose nearest repository it is; the root's indexes them all.
		own := subs[0]
		add := func(sub *project) {
			sub.paths = append(sub.paths, path)
			sub.walked = append(sub.walked, f)
			if sub == own && reported {
				sub.report[path] = true
			}
		}
		nearest := true
		unitsAbove(f.Abs, pr.root, below, func(u string) {
			if nearest {
				own, nearest = byRoot[u], false
			}
			add(byRoot[u])
		})
		add(subs[0])
	}
	// A repository with nothing to report (a folder of clones with no Python of its own) is
	// not analysed; the largest are started first.
	var order []int
	for i, sub := range subs {
		if len(sub.report) > 0 {
			order = append(order, i)
		}
		if len(sub.report) == len(sub.paths) {
			sub.report = nil // every indexed file is reported
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(subs[b].paths) - len(subs[a].paths) })
	if opts.Progress != nil {
		opts.Progress.Repos.Store(int32(len(order)))
	}
	results := make([]*Result, len(units))
	errs := make([]error, len(units))
	parallel.For(len(order), unitsAtOnce(opts.Jobs), func(_, k int) {
		i := order[k]
		results[i], errs[i] = subs[i].analyseUnit(ctx, opts, pr.root, start)
		if opts.Progress != nil {
			opts.Progress.Done.Add(1)
		}
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, got := range results {
		if got != nil {
			out.units = append(out.units, subs[i])
			out.add(got)
		}
	}
	out.mergeSort()
	return nil
}

// analyseUnit runs the analysis of one repository (sub) of the tree at root.
func (sub *project) analyseUnit(ctx context.Context, opts Options, root string, start time.Time) (*Result, error) {
	var cache *resultCache
	if opts.Cache != nil && opts.Stdin == nil {
		// One cache folder for the tree, as ruff keeps one .ruff_cache with an entry per
		// package: the tree's root's, not one written into each repository.
		c := *opts.Cache
		if c.Dir == "" {
			c.Dir = filepath.Join(root, DefaultCacheDir)
		}
		cache = openCache(ctx, &c, sub, opts.Jobs, start)
		defer cache.head.release()
	}
	got := &Result{Root: sub.root, RootRel: displayPath(sub.cwd, sub.root), Cwd: sub.cwd, p: sub}
	if err := sub.analyseInto(ctx, opts, cache, got, func() {}); err != nil {
		return nil, err
	}
	// Code frames, fixes and noqa read the files again, as after a run from the cache, and
	// need of the analysis only the syntax errors' counts (ApplyFixes): the rest is in the
	// tree's result.
	sub.res, sub.facts = nil, nil
	sub.a = &analysed{SyntaxCount: sub.a.SyntaxCount}
	return got, nil
}

// add puts a repository's result into the tree's (mergeSort orders it once all are in).
func (r *Result) add(got *Result) {
	if r.Report == nil {
		r.Report = &report.Report{Source: r.source}
	}
	r.Report.Findings = append(r.Report.Findings, got.Report.Findings...)
	r.Report.FilesChecked += got.Report.FilesChecked
	r.Calls = append(r.Calls, got.Calls...)
	r.Warnings = append(r.Warnings, got.Warnings...)
	r.Unreadable = append(r.Unreadable, got.Unreadable...)
	r.SyntaxErrors = append(r.SyntaxErrors, got.SyntaxErrors...)
	r.Incomplete = append(r.Incomplete, got.Incomplete...)
	r.Errors = append(r.Errors, got.Errors...)
	s, g := &r.Stats, got.Stats
	first := s.Repositories == 0
	s.Repositories++
	s.Reported += g.Reported
	s.Parsed += g.Parsed
	s.Rounds = max(s.Rounds, g.Rounds)
	s.Reused += g.Reused
	s.Unread += g.Unread
	s.Kept += g.Kept
	s.KeptAgain += g.KeptAgain
	s.CacheCalls += g.CacheCalls
	s.Classified += g.Classified
	s.Reread += g.Reread
	s.Added += g.Added
	s.Removed += g.Removed
	s.Cached = g.Cached && (first || s.Cached)
	if s.CacheMiss == "" && g.CacheMiss != "" {
		s.CacheMiss = got.RootRel + ": " + g.CacheMiss
	}
	if s.KeptMiss == "" && g.KeptMiss != "" {
		s.KeptMiss = got.RootRel + ": " + g.KeptMiss
	}
	if first {
		s.CacheDir = g.CacheDir // the same folder for every repository
	}
}

// mergeSort orders what the repositories reported as one run orders it: by file, then
// position (each repository's own order kept within a file).
func (r *Result) mergeSort() {
	if r.Report == nil {
		r.Report = &report.Report{Source: r.source}
		return
	}
	sortFindings(r.Report.Findings)
	slices.SortStableFunc(r.Calls, func(a, b report.CallRecord) int { return strings.Compare(a.File, b.File) })
	slices.SortStableFunc(r.SyntaxErrors, func(a, b report.Finding) int { return strings.Compare(a.File, b.File) })
	slices.SortStableFunc(r.Incomplete, func(a, b Incomplete) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(r.Unreadable)
}

// projectOf is the project that analysed the file shown as path: the tree's own when it
// was one project, else the repository that reported the file (every finding's file is
// one's; the tree's table of files, analysed by none, answers for any other path).
func (r *Result) projectOf(path string) *project {
	for _, u := range r.units {
		if u.reported(path) {
			return u
		}
	}
	return r.p
}

// source is a reported file's text as analysed (report.Report.Source).
func (r *Result) source(path string) []byte { return r.projectOf(path).source(path) }

// unitSet is dirs as a set.
func unitSet(dirs []string) map[string]bool {
	set := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		set[d] = true
	}
	return set
}
