package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cachelint/cachelint/internal/output"
	"github.com/cachelint/cachelint/rules"
)

func runRules(args []string, stdout io.Writer) error {
	fs := newFlagSet("rules", "rules [--format text|json] [CODE...]", stdout)
	format := fs.String("format", "text", "text or json")
	fs.StringVar(format, "output-format", "text", "alias of --format")
	sel, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	list, err := selectRules(sel)
	if err != nil {
		return err
	}
	switch *format {
	case "text":
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CODE\tNAME\tSEVERITY\tDEFAULT\tSUMMARY")
		for _, r := range list {
			def := "off"
			if r.Default {
				def = "on"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Code, r.Name, r.Severity, def, r.Summary)
		}
		return tw.Flush()
	case "json":
		type ruleJSON struct {
			Code     string `json:"code"`
			Name     string `json:"name"`
			Severity string `json:"severity"`
			Default  bool   `json:"default"`
			Summary  string `json:"summary"`
			URL      string `json:"url"`
		}
		out := []ruleJSON{}
		for _, r := range list {
			out = append(out, ruleJSON{r.Code, r.Name, string(r.Severity), r.Default, r.Summary, r.URL()})
		}
		return output.WriteJSON(stdout, out)
	}
	return usageErr("unknown --format %q (want text or json)", *format)
}

// selectRules is the rules `cachelint rules CODE...` lists: those any selector names, as
// --select reads them (a code, a prefix such as CL00, a name, ALL), in code order; every
// rule when there is none.
func selectRules(selectors []string) ([]rules.Rule, error) {
	if len(selectors) == 0 {
		return rules.All(), nil
	}
	matched, err := matchRules(selectors)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, r := range matched {
		want[r.Code] = true
	}
	var out []rules.Rule
	for _, r := range rules.All() {
		if want[r.Code] {
			out = append(out, r)
		}
	}
	return out, nil
}

func runExplain(args []string, stdout io.Writer) error {
	fs := newFlagSet("explain", "explain CODE", stdout)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("explain takes one rule code, e.g. cachelint explain CL001")
	}
	r, ok := rules.Lookup(pos[0])
	if !ok {
		return usageErr("unknown rule %q (run 'cachelint rules' for the list)", pos[0])
	}
	doc := r.Doc()
	if doc == "" {
		return fmt.Errorf("rule %s has no documentation", r.Code)
	}
	// Prose is re-flowed for the reader's terminal (80 columns when stdout is none); code
	// blocks and tables stay as written.
	_, err = io.WriteString(stdout, wrapMarkdown(doc, outputWidth(stdout)))
	return err
}
