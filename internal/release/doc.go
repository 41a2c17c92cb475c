// Package release holds what scripts/dist.sh needs beyond the go command: the PEP 440
// version of a build, taken from git describe, and the wheels that carry the cachelint
// executable to pip (internal/tools/release is the command the script runs).
package release
