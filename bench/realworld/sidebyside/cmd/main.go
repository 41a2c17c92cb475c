//go:build realworld

// Command sidebyside checks materialised real-world trees one by one and side by side in one
// tree (hard links under -work), and prints which call records differ: what a project loses
// or gains from the other projects beside it.
//
//	bench/realworld/materialise.sh /tmp/rw
//	go build -o /tmp/cachelint ./cmd/cachelint
//	go run -tags realworld ./bench/realworld/sidebyside/cmd -cachelint /tmp/cachelint -trees /tmp/rw \
//	    [-repos owner+name,...] [-work DIR] [-v]
//
// Both runs are `cachelint calls --format json --no-cache --no-config --project-root . .`
// from the tree's folder.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cachelint/cachelint/bench/realworld/invoke"
	"github.com/cachelint/cachelint/bench/realworld/sidebyside"
)

func main() {
	trees := flag.String("trees", "", "`DIR` holding one materialised tree per repository (owner+name)")
	bin := flag.String("cachelint", "cachelint", "cachelint `BINARY`")
	repos := flag.String("repos", "", "comma-separated `owner+name` folders of -trees to put side by side (default: all)")
	work := flag.String("work", "", "`DIR` for the combined tree (default: a temporary folder, removed afterwards); on the filesystem of -trees, files are hard links")
	verbose := flag.Bool("v", false, "list every record that differs")
	flag.Parse()
	if err := run(*trees, *bin, *repos, *work, *verbose, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

func run(trees, bin, repos, work string, verbose bool, out io.Writer) error {
	if trees == "" {
		return errors.New("-trees is required")
	}
	var names []string
	if repos != "" {
		names = strings.Split(repos, ",")
	} else {
		entries, err := os.ReadDir(trees)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	if len(names) < 2 {
		return fmt.Errorf("%d trees: side by side needs two or more", len(names))
	}
	bin = invoke.Binary(bin)
	if work == "" {
		dir, err := os.MkdirTemp("", "sidebyside")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	combinedRoot := filepath.Join(work, "tree")
	if err := os.RemoveAll(combinedRoot); err != nil {
		return err
	}
	single := map[string][]sidebyside.Record{}
	total := 0
	for _, name := range names {
		src := filepath.Join(trees, name)
		if err := linkTree(src, filepath.Join(combinedRoot, name)); err != nil {
			return err
		}
		recs, err := calls(bin, src)
		if err != nil {
			return err
		}
		single[name] = recs
		total += len(recs)
	}
	combined, err := calls(bin, combinedRoot)
	if err != nil {
		return err
	}
	d := sidebyside.Compare(single, combined)
	fmt.Fprintf(out, "%d projects side by side: %d call records checked one by one, %d together\n", len(names), total, len(combined))
	count := func(keys []string) string {
		if len(keys) == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (%s)", len(keys), sidebyside.PerProject(keys))
	}
	fmt.Fprintf(out, "missing together: %s\n", count(d.Missing))
	fmt.Fprintf(out, "only together: %s\n", count(d.Extra))
	if verbose {
		for _, k := range d.Missing {
			fmt.Fprintln(out, "- "+k)
		}
		for _, k := range d.Extra {
			fmt.Fprintln(out, "+ "+k)
		}
	}
	return nil
}

// calls runs cachelint's call listing over the tree at dir.
func calls(bin, dir string) ([]sidebyside.Record, error) {
	var recs []sidebyside.Record
	err := invoke.JSON(bin, dir, []string{"calls", "--format", "json", "--no-cache", "--no-config", "--project-root", ".", "."}, &recs)
	return recs, err
}

// linkTree makes dst a copy of src's files, hard-linked where the filesystem allows.
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if os.Link(p, target) == nil {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
