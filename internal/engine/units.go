package engine

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/internal/walk"
)

// A tree that holds several git repositories (a folder of clones, a repository with
// submodules) is analysed one repository at a time, each as its own project: its files
// indexed from its own root, its helpers resolved among them, its findings those its own
// run would give. So `cachelint check ~/code` reports on each clone what `cachelint check`
// inside the clone, and a pre-commit run of one of its files (whose project root is the
// nearest directory with a .git, walk.FindProjectRoot), report; one clone's helper names
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
	last := ""
	for i := range walked {
		r := walked[i].Repo
		if r == "" || r == last || r == root || !within(r, root) {
			continue
		}
		last = r
		if !slices.Contains(units, r) {
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

// unitOf is the deepest of units (sorted, root first) that abs lies below: root for a file
// outside every repository below it.
func unitOf(abs string, units []string) string {
	for i := len(units) - 1; i > 0; i-- {
		if within(abs, units[i]) {
			return units[i]
		}
	}
	return units[0]
}

// runUnit analyses the repository u as a project of its own and adds what it reports to
// out. What the analysis held (its trees and texts) is let go before the next one.
func (pr *project) runUnit(ctx context.Context, opts Options, u string, units []string, start time.Time, out *Result) error {
	sub := &project{cwd: pr.cwd, root: u, cfg: pr.cfg, an: pr.an, stdin: pr.stdin, stdinPath: pr.stdinPath,
		sources: map[string][]byte{}, nb: map[string]*notebookInfo{}, malformed: map[string][]string{}, report: map[string]bool{}}
	for i, path := range pr.paths {
		f := pr.walked[i]
		mine := unitOf(f.Abs, units) == u
		if !mine && !within(f.Abs, u) {
			continue
		}
		sub.paths = append(sub.paths, path)
		sub.walked = append(sub.walked, f)
		if mine && pr.reported(path) {
			sub.report[path] = true
		}
	}
	if len(sub.report) == 0 {
		return nil
	}
	if len(sub.report) == len(sub.paths) {
		sub.report = nil // every indexed file is reported
	}
	var cache *resultCache
	if opts.Cache != nil && opts.Stdin == nil {
		// One cache folder for the tree, as ruff keeps one .ruff_cache with an entry per
		// package: the tree's root's, not one written into each repository.
		c := *opts.Cache
		if c.Dir == "" {
			c.Dir = filepath.Join(pr.root, DefaultCacheDir)
		}
		cache = openCache(ctx, &c, sub, opts.Jobs, start)
		defer cache.head.release()
	}
	got := &Result{Root: u, RootRel: displayPath(pr.cwd, u), Cwd: pr.cwd, p: sub}
	if err := sub.analyseInto(ctx, opts, cache, got, func() {}); err != nil {
		return err
	}
	// Code frames, fixes and noqa read the files again, as after a run from the cache, and
	// need of the analysis only the syntax errors' counts (ApplyFixes): the rest is in out.
	sub.res, sub.facts = nil, nil
	sub.a = &analysed{SyntaxCount: sub.a.SyntaxCount}
	out.units = append(out.units, sub)
	out.add(got)
	return nil
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
	s.Indexed += g.Indexed
	s.Parsed += g.Parsed
	s.Rounds = max(s.Rounds, g.Rounds)
	s.Reused += g.Reused
	s.Unread += g.Unread
	s.Kept += g.Kept
	s.KeptAgain += g.KeptAgain
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

// projectOf is the project that analysed the file shown as path.
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
