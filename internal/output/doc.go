// Package output prints a check run's findings in the formats `--format` accepts: text
// (alias full), concise, json, json-lines, sarif, github, gitlab and junit, plus the
// `--statistics` table. Each format lives in its own file; Print dispatches on the name.
//
// Choices made where the spec is silent, following ruff:
//
//   - text and concise end with a summary that counts the findings by severity: ruff's
//     "Found N error(s)." when every finding is an error (all of ruff's are), else
//     "Found 5 findings: 2 errors, 2 warnings, 1 info."; after --fix, "Found 4 findings
//     (2 fixed, 2 remaining: 1 error, 1 warning)." (ruff's "(1 fixed, 2 remaining)", which
//     replaces the CLI's stderr note then); "All checks passed!" when there is none; then
//     ruff's fix hint ("[*] N fixable with the `--fix` option." /
//     "No fixes available (N hidden fixes can be enabled with the `--unsafe-fixes` option).").
//   - A finding that --fix would fix under the current --unsafe-fixes setting shows `[*]`
//     after its code (`CL006 [*] [warning] ...`), as ruff's do: the markers are what the
//     summary's "[*] N fixable" counts. An unsafe fix is marked only with --unsafe-fixes.
//   - text frames show the line before the reported one and the reported line; a span that
//     runs over several lines is underlined to the end of its first line. Tabs expand to
//     the next multiple of 4 columns and control characters show as their Unicode control
//     pictures, so source text cannot move the carets or send terminal escapes.
//     Related locations print as "= note:" lines between the frame and "= help:".
//   - Columns everywhere are Unicode code points (SARIF says so with
//     columnKind "unicodeCodePoints"); wide characters count as one, as in ruff.
//   - Machine formats (json, json-lines, sarif, github, gitlab, junit attributes) locate
//     notebook findings by Line/Column in the .ipynb file; text, concise, the JUnit failure
//     text and the GitHub step summary use "cell N:line L".
//   - Fingerprints (SARIF partialFingerprints "cachelint/v2", GitLab fingerprint) are the
//     baseline's (baseline.Fingerprints): rule code, file relative to the project root,
//     enclosing function and normalised statement, never the line; identical statements in
//     the same function get an occurrence number so each keeps a distinct fingerprint.
//   - GitLab severities: error→major (what ruff uses for its findings), warning→minor,
//     info→info.
//   - --statistics prints nothing when there are no findings, like ruff.
package output
