package engine

import "path/filepath"

// treePacks reads the index of every pack of a tree folder, by path (tests).
func treePacks(dir string) (map[string]*treePack, error) {
	names, err := filepath.Glob(filepath.Join(dir, packPrefix+"*"+packSuffix))
	if err != nil {
		return nil, err
	}
	out := map[string]*treePack{}
	for _, name := range names {
		p, err := openPack(name)
		if err != nil {
			return nil, err
		}
		p.f.Close()
		out[name] = p
	}
	return out, nil
}

// TreeKeys lists the keys of the trees each pack of a tree folder holds, by pack (tests).
func TreeKeys(dir string) (map[string][]string, error) {
	packs, err := treePacks(dir)
	out := map[string][]string{}
	for name, p := range packs {
		out[name] = p.keys
	}
	return out, err
}

// TreeSpans lists where each pack of a tree folder keeps its trees: offset and length, by
// pack (tests).
func TreeSpans(dir string) (map[string][][2]int64, error) {
	packs, err := treePacks(dir)
	out := map[string][][2]int64{}
	for name, p := range packs {
		for _, r := range p.refs {
			out[name] = append(out[name], [2]int64{r.off, r.n})
		}
	}
	return out, err
}

// SetParseAheadHook sets the function a run calls with the files it parses ahead (nil:
// none).
func SetParseAheadHook(f func(paths []string)) { testHookParseAhead = f }

// SetParseNamedHook sets the function that sees the files named that a run parses ahead
// unless their trees are kept (nil: none).
func SetParseNamedHook(f func(paths []string)) { testHookParseNamed = f }

// NamedAheadMax is the most files named that a run parses ahead.
const NamedAheadMax = namedAheadMax

// SetNoParseHook sets the function that runs as a run cancels the parses ahead of the files
// named (nil: none).
func SetNoParseHook(f func()) { testHookNoParse = f }

// SetParsedAheadHook sets the function that sees each file whose parse ahead starts (nil:
// none).
func SetParsedAheadHook(f func(path string)) { testHookParsedAhead = f }

// SetReadHook sets the function readFile runs as it reads a file for the analysis (nil:
// none).
func SetReadHook(f func(path string)) { testHookRead = f }

// SetRereadHook sets the function load runs as it reads a file again (nil: none).
func SetRereadHook(f func()) { testHookReread = f }

// SetRecordsPerChunk sets how many call records a goroutine resolves at a time, and returns
// the old setting.
func SetRecordsPerChunk(n int) int {
	old := recordsPerChunk
	recordsPerChunk = n
	return old
}

// SetAnalysisPause replaces the collector pause the analysis is given (driver.Settings.PauseGC)
// with pause, and returns the one it replaced.
func SetAnalysisPause(pause func() func()) func() func() {
	old := analysisPause
	analysisPause = pause
	return old
}

// SetAnalysisHold replaces the collector hold the analysis is given (driver.Settings.HoldGC)
// with hold, and returns the one it replaced.
func SetAnalysisHold(hold func() func()) func() func() {
	old := analysisHold
	analysisHold = hold
	return old
}

// SetAnalysedHook sets what runs once the analysis has returned, before the cache is written
// (nil: nothing).
func SetAnalysedHook(hook func()) { testHookAnalysed = hook }

// HoldGC is the engine's own collector hold (holdGC).
func HoldGC() func() { return holdGC() }

// PauseGC is the engine's own collector pause (pauseGC).
func PauseGC() func() { return pauseGC() }

// SetUnitsAtOnce sets how many repositories a run analyses at the same time and returns
// what puts the setting back.
func SetUnitsAtOnce(n int) (restore func()) {
	old := unitsAtOnce
	unitsAtOnce = func(int) int { return n }
	return func() { unitsAtOnce = old }
}
