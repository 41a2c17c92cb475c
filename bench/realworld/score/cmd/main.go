//go:build realworld

// Command score runs a cachelint build over the materialised real-world trees and prints
// precision and recall per rule and per pattern against testdata/realworld/labels.jsonl.
//
//	bench/realworld/materialise.sh /tmp/rw
//	go build -o /tmp/cachelint ./cmd/cachelint
//	go run -tags realworld ./bench/realworld/score/cmd -cachelint /tmp/cachelint -trees /tmp/rw [-v]
//
// The build tag keeps it out of `go install ./...` (the golang pre-commit hook installs
// cachelint alone).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cachelint/cachelint/bench/realworld/invoke"
	"github.com/cachelint/cachelint/bench/realworld/score"
)

func main() {
	labelsPath := flag.String("labels", "testdata/realworld/labels.jsonl", "labels `FILE`")
	trees := flag.String("trees", "", "`DIR` holding one materialised tree per repository (owner+name)")
	bin := flag.String("cachelint", "cachelint", "cachelint `BINARY` to score")
	only := flag.String("repo", "", "score only this `owner/name`")
	verbose := flag.Bool("v", false, "list every mismatch")
	unlabelled := flag.String("unlabelled", "", "write the default-on findings at unlabelled lines to `FILE` (JSON lines)")
	flag.Parse()
	if err := run(*labelsPath, *trees, *bin, *only, *verbose, *unlabelled); err != nil {
		fmt.Fprintln(os.Stderr, "score:", err)
		os.Exit(1)
	}
}

func run(labelsPath, trees, bin, only string, verbose bool, unlabelled string) error {
	if trees == "" {
		return errors.New("-trees is required (run bench/realworld/materialise.sh first)")
	}
	labels, err := score.ReadLabelsFile(labelsPath)
	if err != nil {
		return err
	}
	if only != "" {
		var kept []score.Label
		for _, l := range labels {
			if l.Repo == only {
				kept = append(kept, l)
			}
		}
		if len(kept) == 0 {
			return fmt.Errorf("no labels for %s", only)
		}
		labels = kept
	}
	results := map[string]score.RepoResult{}
	for _, l := range labels {
		if _, done := results[l.Repo]; done {
			continue
		}
		tree := filepath.Join(trees, strings.ReplaceAll(l.Repo, "/", "+"))
		res, err := analyse(bin, tree)
		if err != nil {
			return fmt.Errorf("%s: %w", l.Repo, err)
		}
		results[l.Repo] = res
	}
	for _, l := range labels {
		src, err := os.ReadFile(filepath.Join(trees, strings.ReplaceAll(l.Repo, "/", "+"), l.Path))
		if err != nil {
			return fmt.Errorf("%s: %w", l.Repo, err)
		}
		if !score.IsHandlerLabel(l) {
			if !score.LineHolds(src, l.Line, l.Code) {
				fmt.Fprintf(os.Stderr, "warning: %s %s:%d does not hold the labelled `%s`\n", l.Repo, l.Path, l.Line, l.Code)
			}
			continue
		}
		res := results[l.Repo]
		if res.HandlerEnd == nil {
			res.HandlerEnd = map[string]int{}
		}
		res.HandlerEnd[fmt.Sprintf("%s:%d", l.Path, l.Line)] = score.HandlerEnd(src, l.Line)
		results[l.Repo] = res
	}
	s, err := score.Compute(labels, results)
	if err != nil {
		return err
	}
	s.Print(os.Stdout, verbose)
	if unlabelled != "" {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for _, u := range s.UnlabelledList {
			if err := enc.Encode(u); err != nil {
				return err
			}
		}
		return os.WriteFile(unlabelled, b.Bytes(), 0o644)
	}
	return nil
}

// analyse runs check (with CL003, which is off by default) and calls over one tree, from
// inside it so that paths come out relative to the repository root.
func analyse(bin, tree string) (score.RepoResult, error) {
	var res score.RepoResult
	if fi, err := os.Stat(tree); err != nil || !fi.IsDir() {
		return res, fmt.Errorf("no tree at %s (run bench/realworld/materialise.sh)", tree)
	}
	bin = invoke.Binary(bin)
	common := []string{"--format", "json", "--no-config", "--project-root", ".", "."}
	if err := invoke.JSON(bin, tree, append([]string{"check", "--exit-zero", "--extend-select", "CL003"}, common...), &res.Findings); err != nil {
		return res, err
	}
	if err := invoke.JSON(bin, tree, append([]string{"calls"}, common...), &res.Calls); err != nil {
		return res, err
	}
	return res, nil
}
