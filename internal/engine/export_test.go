package engine

import "path/filepath"

// TreeSpans lists, for each pack of a tree folder (by path), where its trees are: offset
// and length (tests).
func TreeSpans(dir string) (map[string][][2]int64, error) {
	names, err := filepath.Glob(filepath.Join(dir, packPrefix+"*"+packSuffix))
	if err != nil {
		return nil, err
	}
	out := map[string][][2]int64{}
	for _, name := range names {
		p, err := openPack(name)
		if err != nil {
			return nil, err
		}
		for _, r := range p.refs {
			out[name] = append(out[name], [2]int64{r.off, r.n})
		}
		p.f.Close()
	}
	return out, nil
}

// TreeKeys lists the keys of the trees each pack of a tree folder holds (tests).
var TreeKeys = treeKeys
