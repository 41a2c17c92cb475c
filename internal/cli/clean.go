package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cachelint/cachelint/internal/config"
	"github.com/cachelint/cachelint/internal/engine"
)

// runClean is `cachelint clean [PATH...]`, as `ruff clean`: it removes every
// .cachelint_cache folder under the paths (default: the working directory), and the cache
// folder --cache-dir, CACHELINT_CACHE_DIR or the configuration names, printing each one.
func runClean(args []string, stdout io.Writer) error {
	fs := newFlagSet("clean", "clean [flags] [PATH...]", stdout)
	cacheDir := fs.String("cache-dir", "", "also remove this cache `DIR` (also CACHELINT_CACHE_DIR)")
	noConfig := fs.Bool("no-config", false, "ignore every configuration file (its cache-dir)")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return usageErr("%s: not a directory", p)
		}
	}
	var extra []string
	switch {
	case *cacheDir != "":
		extra = append(extra, *cacheDir)
	case os.Getenv("CACHELINT_CACHE_DIR") != "":
		extra = append(extra, os.Getenv("CACHELINT_CACHE_DIR"))
	case !*noConfig:
		if cfg, err := config.Discover(paths[0]); err == nil && cfg != nil && cfg.CacheDir != nil {
			d := *cfg.CacheDir
			if !filepath.IsAbs(d) {
				d = filepath.Join(cfg.Dir, d)
			}
			extra = append(extra, d)
		}
	}
	removed, err := engine.CleanCaches(paths, extra)
	for _, d := range removed {
		fmt.Fprintf(stdout, "Removed cache at: %s\n", d)
	}
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	return nil
}
