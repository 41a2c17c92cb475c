package engine

import (
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cachelint/cachelint/internal/driver"
)

// An entry holds for the analysis scope it was written for, and for a scope that differs by
// files added or removed that the analysis would not have read: an added file that mentions
// no needle, a removed file that was not parsed and that nothing asked about, neither of them
// a path the analysis looked up (Facts.Lookups: an import resolved against the scope's paths
// finds another module, or none, when a file of the name it looked for comes or goes). The
// entry keeps its scope's paths and the lookups for that, read only when the scope changed.

// Lookups are what the analysis asked of the scope's paths besides the files' texts.
type Lookups = driver.Lookups

// lookupSet answers whether a path is one the analysis looked up.
type lookupSet struct {
	paths, suffixes map[string]bool
}

func newLookupSet(paths, suffixes []string) *lookupSet {
	s := &lookupSet{paths: make(map[string]bool, len(paths)), suffixes: make(map[string]bool, len(suffixes))}
	for _, p := range paths {
		s.paths[p] = true
	}
	for _, p := range suffixes {
		s.suffixes[p] = true
	}
	return s
}

// has reports whether abs (absolute, slash-separated) is a path looked up or ends with a
// suffix looked up.
func (s *lookupSet) has(abs string) bool {
	if s.paths[abs] {
		return true
	}
	for i := range len(abs) {
		if abs[i] == '/' && s.suffixes[abs[i:]] {
			return true
		}
	}
	return false
}

// slashAbs is a display path as the analysis names it in Lookups.
func slashAbs(cwd, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// appendList appends a list of strings front-coded: its length, then for each string the
// length of the prefix it shares with the one before, the length of the rest and the rest
// (uvarints before bytes). Sorted paths share most of their text: the 15-project tree's
// 11,999 paths take a sixth of their length.
func appendList(out []byte, list []string) []byte {
	out = binary.AppendUvarint(out, uint64(len(list)))
	prev := ""
	for _, s := range list {
		n := 0
		for n < len(s) && n < len(prev) && s[n] == prev[n] {
			n++
		}
		out = binary.AppendUvarint(out, uint64(n))
		out = binary.AppendUvarint(out, uint64(len(s)-n))
		out = append(out, s[n:]...)
		prev = s
	}
	return out
}

// decodeList reads a list appendList wrote, and the bytes after it; anything else is an
// error.
func decodeList(data []byte) (list []string, rest []byte, err error) {
	bad := errors.New("corrupt cache entry: a list of paths does not read")
	next := func() (int, bool) {
		v, k := binary.Uvarint(data)
		if k <= 0 || v > math.MaxInt32 {
			return 0, false
		}
		data = data[k:]
		return int(v), true
	}
	n, ok := next()
	if !ok || n > len(data) {
		return nil, nil, bad
	}
	list = make([]string, 0, n)
	var b strings.Builder
	prev := ""
	for range n {
		shared, ok1 := next()
		more, ok2 := next()
		if !ok1 || !ok2 || shared > len(prev) || more > len(data) {
			return nil, nil, bad
		}
		b.Reset()
		b.Grow(shared + more)
		b.WriteString(prev[:shared])
		b.Write(data[:more])
		data = data[more:]
		prev = b.String()
		list = append(list, prev)
	}
	return list, data, nil
}

// scopeChange is how the run's scope differs from the entry's.
type scopeChange struct {
	// stamps are the entry's stamps for the run's paths; an added file's stamp is one no
	// file has (size -1), so that load reads it and checks it against the needles.
	stamps []fileStamp
	// added and removed count the files.
	added, removed int
}

// rescope aligns an entry written for another scope with the run's paths; why says, when it
// cannot, which file added or removed may matter to the analysis (or that the entry's lists
// do not read).
func (rc *resultCache) rescope(e *cacheEntry) (sc scopeChange, why string) {
	const corrupt = "its lists of paths do not read"
	old, rest, err := decodeList(e.List)
	if err != nil || len(rest) != 0 {
		return sc, corrupt
	}
	oldStamps, err := decodeStamps(e.Stamps, len(old))
	if err != nil {
		return sc, corrupt
	}
	l, err := decodeLookups(e.Lookups)
	if err != nil {
		return sc, corrupt
	}
	looked := newLookupSet(l.Paths, l.Suffixes)
	matters := func(p string) bool { return looked.has(slashAbs(rc.pr.cwd, p)) }
	at := make(map[string]int, len(old))
	for i, p := range old {
		at[p] = i
	}
	sc.stamps = make([]fileStamp, len(rc.paths))
	for i, p := range rc.paths {
		j, ok := at[p]
		if !ok {
			if matters(p) {
				return sc, p + " was added where the analysis looked for a module"
			}
			sc.stamps[i] = fileStamp{Size: -1}
			sc.added++
			continue
		}
		sc.stamps[i] = oldStamps[j]
		delete(at, p)
	}
	for _, p := range slices.Sorted(maps.Keys(at)) {
		switch {
		case oldStamps[at[p]].Parsed:
			return sc, p + ", which the analysis parsed, was removed"
		case e.A.ImportsAsked[p] != nil || matters(p):
			return sc, p + " was removed where the analysis looked for a module"
		}
		sc.removed++
	}
	return sc, ""
}

// appendLookups encodes lookups for an entry: the paths, then the suffixes (appendList).
func appendLookups(out []byte, l Lookups) []byte {
	return appendList(appendList(out, l.Paths), l.Suffixes)
}

// decodeLookups reads what appendLookups wrote.
func decodeLookups(data []byte) (l Lookups, err error) {
	if l.Paths, data, err = decodeList(data); err != nil {
		return l, err
	}
	if l.Suffixes, data, err = decodeList(data); err != nil {
		return l, err
	}
	if len(data) != 0 {
		return l, errors.New("corrupt cache entry: its lookups are followed by more")
	}
	return l, nil
}
