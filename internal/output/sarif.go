package output

import (
	"bytes"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/rules"
)

const (
	sarifSchema     = "https://json.schemastore.org/sarif-2.1.0.json"
	informationURI  = "https://github.com/cachelint/cachelint"
	srcRoot         = "SRCROOT"
	fingerprintName = "cachelint/v2"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                        `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
	// ColumnKind is stated because SARIF's default is UTF-16 code units and ours are
	// code points.
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name"`
	ShortDescription     sarifMessage       `json:"shortDescription"`
	FullDescription      sarifMessage       `json:"fullDescription"`
	Help                 sarifMessage       `json:"help"`
	HelpURI              string             `json:"helpUri"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
}

type sarifConfiguration struct {
	Enabled bool   `json:"enabled"`
	Level   string `json:"level"`
}

type sarifMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           *int              `json:"ruleIndex,omitempty"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Fixes               []sarifFix        `json:"fixes,omitempty"`
	// Properties carries the probe's cost estimate (`cachelint check --cost-profile`).
	Properties map[string]string `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID               *int          `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifMessage `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine,omitempty"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

type sarifFix struct {
	Description     sarifMessage          `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []sarifReplacement    `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifRegion   `json:"deletedRegion"`
	InsertedContent *sarifMessage `json:"insertedContent,omitempty"`
}

func sarifLevel(s rules.Severity) string {
	switch s {
	case rules.Error:
		return "error"
	case rules.Info:
		return "note"
	}
	return "warning"
}

func printSARIF(b *bytes.Buffer, fs []report.Finding, _ *report.Report, opts Options) error {
	all := rules.All()
	index := map[string]int{}
	driver := sarifDriver{
		Name:           "cachelint",
		Version:        opts.Version,
		InformationURI: informationURI,
		Rules:          make([]sarifRule, 0, len(all)),
	}
	for i, r := range all {
		index[r.Code] = i
		driver.Rules = append(driver.Rules, sarifRuleFor(r, r.Doc()))
	}

	run := sarifRun{
		Tool:       sarifTool{Driver: driver},
		ColumnKind: "unicodeCodePoints",
		Results:    make([]sarifResult, 0, len(fs)),
	}
	if base, ok := baseURI(opts.Cwd); ok {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLocation{srcRoot: {URI: base}}
	}
	withBase := run.OriginalURIBaseIDs != nil

	prints := fingerprints(fs, opts)
	for i, f := range fs {
		loc := artifactLocation(f.File, withBase)
		res := sarifResult{
			RuleID:              f.Code,
			Level:               sarifLevel(f.Severity),
			Message:             sarifMessage{Text: f.Message},
			Locations:           []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: loc, Region: region(f.Line, f.Column, f.EndLine, f.EndColumn)}}},
			PartialFingerprints: map[string]string{fingerprintName: prints[i]},
		}
		if ri, ok := index[f.Code]; ok {
			res.RuleIndex = &ri
		}
		if f.Cost != "" {
			res.Message.Text += " (cost: " + f.Cost + ")"
			res.Properties = map[string]string{"cost": f.Cost}
		}
		for j, r := range f.Related {
			id := j
			res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
				ID: &id,
				PhysicalLocation: sarifPhysical{
					ArtifactLocation: artifactLocation(r.File, withBase),
					Region:           region(r.Line, r.Column, 0, 0),
				},
				Message: &sarifMessage{Text: r.Message},
			})
		}
		if fix, ok := sarifFixFor(f.Fix, loc); ok {
			res.Fixes = []sarifFix{fix}
		}
		run.Results = append(run.Results, res)
	}

	log := sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}}
	if err := encoder(b, true).Encode(log); err != nil {
		return fmt.Errorf("encode sarif log: %w", err)
	}
	return nil
}

// sarifRuleFor describes a rule from its registry entry and its Markdown doc.
func sarifRuleFor(r rules.Rule, doc string) sarifRule {
	doc = strings.TrimSpace(doc)
	full := docSection(doc, "What it does")
	if full == "" {
		full = r.Summary
	}
	help := sarifMessage{Text: r.Summary + "\n\n" + r.URL()}
	if doc != "" {
		help = sarifMessage{Text: doc, Markdown: doc}
	}
	return sarifRule{
		ID:                   r.Code,
		Name:                 r.Name,
		ShortDescription:     sarifMessage{Text: r.Summary},
		FullDescription:      sarifMessage{Text: full},
		Help:                 help,
		HelpURI:              r.URL(),
		DefaultConfiguration: sarifConfiguration{Enabled: r.Default, Level: sarifLevel(r.Severity)},
	}
}

// docSection returns the body of a "## title" section of a rule doc, "" if absent.
func docSection(doc, title string) string {
	var body []string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "## ") {
			if in {
				break
			}
			in = strings.TrimSpace(strings.TrimPrefix(line, "## ")) == title
			continue
		}
		if in {
			body = append(body, line)
		}
	}
	return strings.TrimSpace(strings.Join(body, "\n"))
}

// region builds a SARIF region, leaving out whatever is not a valid 1-based position (the
// schema rejects 0), and nil when not even the line is known.
func region(line, col, endLine, endCol int) *sarifRegion {
	if line < 1 {
		return nil
	}
	r := &sarifRegion{StartLine: line}
	if col >= 1 {
		r.StartColumn = col
	}
	if endLine >= line {
		r.EndLine = endLine
		if endCol >= 1 && col >= 1 {
			r.EndColumn = endCol
		}
	}
	return r
}

func sarifFixFor(fix *report.Fix, loc sarifArtifactLocation) (sarifFix, bool) {
	if fix == nil {
		return sarifFix{}, false
	}
	change := sarifArtifactChange{ArtifactLocation: loc}
	for _, e := range fix.Edits {
		// An edit without a full, valid range cannot be expressed as a deletedRegion.
		if e.Line < 1 || e.Column < 1 || e.EndLine < e.Line || e.EndColumn < 1 {
			continue
		}
		rep := sarifReplacement{DeletedRegion: sarifRegion{
			StartLine: e.Line, StartColumn: e.Column, EndLine: e.EndLine, EndColumn: e.EndColumn,
		}}
		if e.NewText != "" {
			rep.InsertedContent = &sarifMessage{Text: e.NewText}
		}
		change.Replacements = append(change.Replacements, rep)
	}
	if len(change.Replacements) == 0 {
		return sarifFix{}, false
	}
	return sarifFix{
		Description:     sarifMessage{Text: fix.Message},
		ArtifactChanges: []sarifArtifactChange{change},
	}, true
}

// artifactLocation turns a finding path into a URI: relative paths stay relative (code
// scanning resolves them against the checkout) and are tied to SRCROOT when it is known;
// absolute paths become file URIs.
func artifactLocation(file string, withBase bool) sarifArtifactLocation {
	p := slashPath(file)
	if isAbsPath(p) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		return sarifArtifactLocation{URI: (&url.URL{Scheme: "file", Path: p}).String()}
	}
	loc := sarifArtifactLocation{URI: (&url.URL{Path: p}).String()}
	if withBase {
		loc.URIBaseID = srcRoot
	}
	return loc
}

// baseURI is the file URI of the working directory, with the trailing slash SARIF
// requires of a base; false unless cwd is absolute.
func baseURI(cwd string) (string, bool) {
	if cwd == "" {
		return "", false
	}
	p := filepath.ToSlash(cwd)
	if !isAbsPath(p) {
		return "", false
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String(), true
}
