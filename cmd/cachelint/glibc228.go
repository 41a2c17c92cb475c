//go:build glibc228

package main

// Release builds (scripts/dist.sh) run on glibc 2.28 and newer: see internal/glibc228.
import _ "github.com/cachelint/cachelint/internal/glibc228"
