//go:build !unix

package engine

import (
	"errors"
	"os"
)

// mapPack is not done here: trees are read from the pack's file (treeStore.Get).
func mapPack(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }
