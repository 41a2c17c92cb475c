package output

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/cachelint/cachelint/internal/report"
)

// The JUnit layout is ruff's: a testsuite per file, a failed testcase per finding, and a
// single passing testcase when there is nothing to report (CI dashboards treat an empty
// report as a broken run).

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Disabled int         `xml:"disabled,attr"`
	Errors   int         `xml:"errors,attr"`
	Failures int         `xml:"failures,attr"`
	Package  string      `xml:"package,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Line      int           `xml:"line,attr,omitempty"`
	Column    int           `xml:"column,attr,omitempty"`
	Failure   *junitFailure `xml:"failure"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	// Text is already-escaped XML: encoding/xml writes line breaks in character data as
	// "&#xA;", and the failure text is read by people in CI test views.
	Text string `xml:",innerxml"`
}

const junitPackage = "org.cachelint"

func printJUnit(b *bytes.Buffer, fs []report.Finding, _ *report.Report, _ Options) error {
	doc := junitSuites{Name: "cachelint"}
	if len(fs) == 0 {
		doc.Tests = 1
		doc.Suites = []junitSuite{{
			Name: "cachelint", Tests: 1, Package: junitPackage,
			Cases: []junitCase{{Name: "No errors found", Classname: "cachelint"}},
		}}
	}
	suiteOf := map[string]int{}
	for _, f := range fs {
		file := slashPath(f.File)
		i, ok := suiteOf[file]
		if !ok {
			i = len(doc.Suites)
			suiteOf[file] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: file, Package: junitPackage})
		}
		s := &doc.Suites[i]
		s.Tests++
		s.Failures++
		doc.Tests++
		doc.Failures++
		s.Cases = append(s.Cases, junitCase{
			Name:      junitPackage + "." + f.Code,
			Classname: strings.TrimSuffix(file, path.Ext(file)),
			Line:      f.Line,
			Column:    f.Column,
			Failure:   &junitFailure{Message: f.Message, Text: xmlText(junitText(f))},
		})
	}
	out, err := xml.MarshalIndent(doc, "", "    ")
	if err != nil {
		return fmt.Errorf("encode junit report: %w", err)
	}
	b.WriteString(xml.Header)
	b.Write(out)
	b.WriteByte('\n')
	return nil
}

// xmlText escapes s as XML character data, keeping its line breaks literal. Characters
// XML 1.0 cannot carry come out as U+FFFD, as encoding/xml does.
func xmlText(s string) string {
	var b bytes.Buffer
	// EscapeText only fails when its writer does; a bytes.Buffer never does.
	_ = xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), "&#xA;", "\n")
}

// junitText is the failure body a person reads in the CI's test view: where, what, and
// what to do.
func junitText(f report.Finding) string {
	var where string
	if f.Cell > 0 {
		col, _ := textColumns(f)
		where = "cell " + strconv.Itoa(f.Cell) + ", line " + strconv.Itoa(f.CellLine) + ", col " + strconv.Itoa(col)
	} else {
		where = "line " + strconv.Itoa(f.Line) + ", col " + strconv.Itoa(f.Column)
	}
	text := where + ", " + f.Message
	if f.Help != "" {
		text += "\n\n" + f.Help
	}
	return text
}
