// Package output prints a check run's findings in the formats `--format` accepts: text
// (alias full), concise, json, json-lines, sarif, github, gitlab and junit, plus the
// `--statistics` table. Each format lives in its own file; Print dispatches on the name.
//
// Choices made where the spec is silent, following ruff:
//
//   - text and concise end with a summary: "Found N error(s)." (every finding counts as an
//     "error", as in ruff, whatever its severity) or "All checks passed!" when there is
//     none, then ruff's fix hint ("[*] N fixable with the `--fix` option." /
//     "No fixes available (N hidden fixes can be enabled with the `--unsafe-fixes` option).").
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
