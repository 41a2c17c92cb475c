package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/cachelint/cachelint/analyzers"
)

// TestFingerprintsDoNotDependOnTheWorkingDirectory checks that SARIF fingerprints, which
// code-scanning services use to follow a finding across runs, are the same whether the
// project is named by a relative or an absolute path: they are made relative to the project
// root, as baselines are.
func TestFingerprintsDoNotDependOnTheWorkingDirectory(t *testing.T) {
	abs, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	prints := func(dir string) map[string]bool {
		var out, errb bytes.Buffer
		Run(context.Background(), analyzers.Engine, []string{"check", "--no-config", "--format", "sarif", dir}, nil, &out, &errb)
		var doc struct {
			Runs []struct {
				Results []struct {
					PartialFingerprints map[string]string `json:"partialFingerprints"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Runs) != 1 {
			t.Fatalf("sarif for %s: %v\n%s", dir, err, errb.String())
		}
		got := map[string]bool{}
		for _, r := range doc.Runs[0].Results {
			got[r.PartialFingerprints["cachelint/v2"]] = true
		}
		return got
	}
	rel, absPrints := prints("../../examples"), prints(abs)
	if len(rel) == 0 || len(rel) != len(absPrints) {
		t.Fatalf("%d fingerprints from the relative path, %d from the absolute one", len(rel), len(absPrints))
	}
	for p := range rel {
		if !absPrints[p] {
			t.Errorf("fingerprint %s only when run with a relative path", p)
		}
	}
}
