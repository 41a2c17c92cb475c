package engine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// The signature store keeps, beside a project's entry, the signature of every file the last
// analysis read (pyparse's filter of the names a file's code can mention), with the file's
// stamp. When the entry no longer holds (a file that mattered changed), the analysis runs
// again, but a file whose size and modification time are those kept is read only when a
// needle may be in it: a commit that edits one file does not read again the thousands that
// mention nothing the analysis looks for, nor the files a later prefilter round parses in
// the rounds before it. Signatures are facts of the text
// alone, answered exactly as a read would answer them (pyparse.Result.Know); the stamps are
// trusted as the entry's are (a time within two seconds of the run that wrote them never
// is). A missing, cut, garbled or foreign store holds nothing.
const sigFormat = "cachelint-signatures-1\n"

// sigSuffix ends the name of each entry's signature store (the entry's name, another end).
const sigSuffix = ".signatures"

// keptSignature is one file's signature and the stamp of the text it was taken from.
type keptSignature struct {
	Size, ModNs int64
	Sig         []byte
}

// Signatures are the signatures a run took, for the next (*pyparse.Result).
type Signatures interface {
	// Signed reports whether the run holds the file's signature.
	Signed(path string) bool
	// AppendSignature appends the file's signature, encoded, to buf.
	AppendSignature(buf []byte, path string) []byte
}

func (rc *resultCache) sigFile() string {
	return filepath.Join(rc.dir, rc.key[:24]+sigSuffix)
}

// signatures returns the kept signatures of the files whose stamp is unchanged, by path:
// slices of the store as read, which the caller drops as it takes them.
func (rc *resultCache) signatures() map[string][]byte {
	rc.kept = make([]bool, len(rc.paths))
	data, err := readMapped(rc.sigFile())
	if err != nil {
		return nil
	}
	out := map[string][]byte{}
	err = decodeSignatures(data, func(path string, k keptSignature) {
		i := sort.SearchStrings(rc.paths, path) // the run's paths are sorted
		if i == len(rc.paths) || rc.paths[i] != path || !rc.statOK[i] || k.ModNs == 0 {
			return
		}
		if now := rc.stamps[i]; now.Size == k.Size && now.ModNs == k.ModNs {
			out[rc.paths[i]] = k.Sig
			rc.kept[i] = true
		}
	})
	if err != nil {
		return nil
	}
	return out
}

// A store is sigFormat, then for each file its path, size, modification time and
// signature (each a uvarint, the path and the signature after their length), then the
// CRC-32C of the records, 4 bytes big-endian: a store damaged on disk is not read.
var sigTable = crc32.MakeTable(crc32.Castagnoli)

// appendKept appends one file's record to a store.
func appendKept(buf []byte, path string, k keptSignature) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(path)))
	buf = append(buf, path...)
	buf = binary.AppendUvarint(buf, uint64(k.Size))
	buf = binary.AppendUvarint(buf, uint64(k.ModNs))
	buf = binary.AppendUvarint(buf, uint64(len(k.Sig)))
	return append(buf, k.Sig...)
}

// decodeSignatures hands each record of a store to fn (the signatures are slices of data);
// a store that is cut, padded, damaged or not one at all is an error, and fn is not called.
func decodeSignatures(data []byte, fn func(path string, k keptSignature)) error {
	body, ok := bytes.CutPrefix(data, []byte(sigFormat))
	if !ok || len(body) < 4 {
		return errors.New("not a signature store of this format")
	}
	body, sum := body[:len(body)-4], body[len(body)-4:]
	if crc32.Checksum(body, sigTable) != binary.BigEndian.Uint32(sum) {
		return errors.New("signature store damaged")
	}
	type record struct {
		path string
		k    keptSignature
	}
	var records []record
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(body)
		if n <= 0 {
			return 0, false
		}
		body = body[n:]
		return v, true
	}
	bytesOf := func() ([]byte, bool) {
		n, ok := next()
		if !ok || n > uint64(len(body)) {
			return nil, false
		}
		b := body[:n:n]
		body = body[n:]
		return b, true
	}
	for len(body) > 0 {
		path, ok1 := bytesOf()
		size, ok2 := next()
		mod, ok3 := next()
		sig, ok4 := bytesOf()
		if !ok1 || !ok2 || !ok3 || !ok4 || size > math.MaxInt64 || mod > math.MaxInt64 {
			return errors.New("corrupt signature store")
		}
		records = append(records, record{string(path), keptSignature{Size: int64(size), ModNs: int64(mod), Sig: sig}})
	}
	for _, r := range records {
		fn(r.path, r.k)
	}
	return nil
}

// saveSignatures replaces the store with the signatures of this run's files, those whose
// stamp the next run can trust, unless the store holds exactly those already; and removes
// the stores of other entries left untouched for treeStaleAfter.
//
// Whether the store is written again is up to the files not parsed: a parsed file's
// signature spares the next analysis only a read in the rounds before the one that parses
// it, not worth writing the whole store again after each edit of such a file.
func (rc *resultCache) saveSignatures(sigs Signatures, parsed map[string]*File) error {
	var keep []int
	same, unparsed := true, 0
	for i, p := range rc.paths {
		if !rc.statOK[i] || !sigs.Signed(p) || rc.settle(rc.stamps[i]).ModNs == 0 {
			continue
		}
		keep = append(keep, i)
		if parsed[p] == nil {
			same = same && rc.kept != nil && rc.kept[i]
			unparsed++
		}
	}
	if same {
		n := 0
		for i, k := range rc.kept {
			if k && parsed[rc.paths[i]] == nil {
				n++
			}
		}
		if n == unparsed {
			return nil
		}
	}
	err := writeAtomicWith(rc.dir, rc.sigFile(), func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 1<<16)
		if _, err := w.WriteString(sigFormat); err != nil {
			return err
		}
		sum := crc32.New(sigTable)
		out := io.MultiWriter(w, sum)
		var rec, sig []byte
		for _, i := range keep {
			s := rc.settle(rc.stamps[i])
			sig = sigs.AppendSignature(sig[:0], rc.paths[i])
			rec = appendKept(rec[:0], rc.paths[i], keptSignature{Size: s.Size, ModNs: s.ModNs, Sig: sig})
			if _, err := out.Write(rec); err != nil {
				return err
			}
		}
		if _, err := w.Write(binary.BigEndian.AppendUint32(nil, sum.Sum32())); err != nil {
			return err
		}
		return w.Flush()
	})
	if err != nil {
		return err
	}
	removeStale(rc.dir, sigSuffix, rc.sigFile())
	return nil
}

// removeStale removes the stores (files ending in suffix) of other entries than keep's left
// untouched for treeStaleAfter.
func removeStale(dir, suffix, keep string) {
	others, _ := filepath.Glob(filepath.Join(dir, "*"+suffix))
	for _, o := range others {
		if fi, err := os.Stat(o); err == nil && o != keep && time.Since(fi.ModTime()) > treeStaleAfter {
			_ = os.Remove(o)
		}
	}
}
