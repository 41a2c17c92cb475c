package pyparse

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"sync"
)

// TreeCache keeps parsed trees between runs, keyed by TreeKey: a run that finds a file's
// tree there skips tree-sitter for it (most of a run's time; a commit changes a few files
// of the hundreds a run parses). Get returns nil when it holds no tree for the key. Both may
// be called from several parse workers at once.
type TreeCache interface {
	Get(key string) []byte
	Put(key string, tree []byte)
}

// treeFormat names the layout of an encoded tree and what the parse keeps of a tree (which
// nodes, which errors): change it whenever either changes.
const treeFormat = "cachelint-tree-4"

var (
	grammarOnce sync.Once
	grammarID   []byte
)

// TreeKey is the key of src's tree: the hash of its text's SHA-256, of the encoding, and of
// the grammar's symbol and field tables (a tree's ids mean nothing under another grammar).
func TreeKey(src []byte) string {
	return treeKeyOf(sha256.Sum256(src))
}

// treeKeyOf is TreeKey of the text whose SHA-256 is text.
func treeKeyOf(text [32]byte) string {
	grammarOnce.Do(func() {
		loadLanguage()
		h := sha256.New()
		h.Write([]byte(treeFormat + "\x00" + strings.Join(kindNames, "\x00") + "\x00\x00" + strings.Join(fieldNames, "\x00")))
		grammarID = h.Sum(nil)
	})
	h := sha256.New()
	h.Write(grammarID)
	h.Write(text[:])
	return hex.EncodeToString(h.Sum(nil))
}

// EncodeTree writes f's tree and syntax errors compactly: per node, in pre-order, its
// symbol and named bit, field, start (as the distance from the previous node's: pre-order
// starts never decrease), length, and distance back to its parent, each a varint; then a
// CRC-32C of all that, so that a tree changed on disk is refused, not read as another tree
// (one bit flipped in a kept tree gave a wrong analysis one time in four without it).
func EncodeTree(f *File) []byte {
	buf := make([]byte, 0, 64+len(f.Src)/2)
	buf = append(buf, treeFormat...)
	buf = binary.AppendUvarint(buf, uint64(len(f.Src)))
	buf = binary.AppendUvarint(buf, uint64(len(f.Errors)))
	for _, e := range f.Errors {
		buf = binary.AppendUvarint(buf, uint64(e.Line))
		buf = binary.AppendUvarint(buf, uint64(e.Col))
		buf = binary.AppendUvarint(buf, uint64(len(e.Msg)))
		buf = append(buf, e.Msg...)
	}
	count := 0
	f.Root.Walk(func(*Node) bool { count++; return true })
	buf = binary.AppendUvarint(buf, uint64(count))
	prev, index := int32(0), 0
	var enc func(n *Node, parent int)
	enc = func(n *Node, parent int) {
		self := index
		index++
		sym := uint64(n.symbol()) << 1
		if n.Named() {
			sym |= 1
		}
		buf = binary.AppendUvarint(buf, sym)
		buf = append(buf, n.fieldIndex())
		buf = binary.AppendUvarint(buf, uint64(n.Start-prev))
		buf = binary.AppendUvarint(buf, uint64(n.End-n.Start))
		buf = binary.AppendUvarint(buf, uint64(self-parent))
		prev = n.Start
		for c := range n.Children() {
			enc(c, self)
		}
	}
	enc(f.Root, 0)
	return binary.BigEndian.AppendUint32(buf, crc32.Checksum(buf, treeCRC))
}

// treeCRC is the CRC-32C table of encoded trees.
var treeCRC = crc32.MakeTable(crc32.Castagnoli)

// errCorruptTree is a cached tree that does not decode into a tree of src.
var errCorruptTree = errors.New("corrupt cached tree")

// DecodeTree builds the File of path from src and its encoded tree, as Parse would have; an
// entry that is not a whole, consistent tree of src is an error, never a panic.
func DecodeTree(path string, src, data []byte) (*File, error) {
	return decodeTree(path, src, data, new(scratch))
}

// decoded is one node of a kept tree as read, before newTree places it.
type decoded struct {
	start, end int32
	kind       uint16
	field      uint8
	named      bool
}

// decodeTree is DecodeTree reading into sc's buffers, which a parser keeps from file to file.
func decodeTree(path string, src, data []byte, sc *scratch) (f *File, err error) {
	loadLanguage()
	defer func() {
		if v := recover(); v != nil {
			f, err = nil, fmt.Errorf("%w: %v", errCorruptTree, v)
		}
	}()
	if len(data) < len(treeFormat)+4 {
		return nil, errCorruptTree
	}
	data, sum := data[:len(data)-4], data[len(data)-4:]
	if crc32.Checksum(data, treeCRC) != binary.BigEndian.Uint32(sum) {
		return nil, errCorruptTree
	}
	d := treeReader{data: data}
	if !strings.HasPrefix(string(data[:len(treeFormat)]), treeFormat) {
		return nil, errCorruptTree
	}
	d.pos = len(treeFormat)
	if d.uvarint() != uint64(len(src)) {
		return nil, errCorruptTree
	}
	f = &File{Path: path, Src: src}
	// Each error takes at least 3 bytes and each node 5: counts beyond what the rest of the
	// entry can hold are garbage, refused before anything is allocated for them.
	nerr := d.uvarint()
	if nerr > uint64(len(data)-d.pos)/3 {
		return nil, errCorruptTree
	}
	for range nerr {
		line, col := int(d.uvarint()), int(d.uvarint())
		f.Errors = append(f.Errors, SyntaxError{Line: line, Col: col, Msg: string(d.bytes(int(d.uvarint())))})
		if d.err != nil {
			return nil, errCorruptTree
		}
	}
	count := int(d.uvarint())
	if count < 1 || count > (len(data)-d.pos)/5+1 || d.err != nil {
		return nil, errCorruptTree
	}
	sc.lines = appendLineStarts(sc.lines[:0], src)
	lines := sc.lines
	sc.decoded, sc.parents, sc.kids = grow(sc.decoded, count), grow(sc.parents, count), grow(sc.kids, count)
	raw, parents, kids := sc.decoded, sc.parents, sc.kids
	clear(kids)
	prev := uint64(0)
	for i := range raw {
		sym := d.uvarint()
		field := d.byte()
		start := prev + d.uvarint()
		end := start + d.uvarint()
		back := d.uvarint()
		if d.err != nil || sym>>1 >= uint64(len(kindNames)) && sym>>1 != symError || int(field) >= len(fieldNames) ||
			end > uint64(len(src)) || (i == 0) != (back == 0) || back > uint64(i) {
			return nil, errCorruptTree
		}
		raw[i] = decoded{start: int32(start), end: int32(end), kind: uint16(sym >> 1), field: field, named: sym&1 == 1}
		prev = start
		parents[i] = int32(i) - int32(back)
		if i > 0 {
			kids[parents[i]]++
		}
	}
	if d.pos != len(data) {
		return nil, errCorruptTree
	}
	sc.pos = grow(sc.pos, count)
	pos := sc.pos
	nodes := newTree(parents, kids, pos, lines)
	for i, r := range raw {
		n := &nodes[pos[i]]
		n.meta = packMeta(r.kind, r.field, r.named)
		n.Start, n.End = r.start, r.end
	}
	f.Root = &nodes[0]
	f.buildModel(f.Root)
	return f, nil
}

// treeReader reads an encoded tree; a read past its end sets err.
type treeReader struct {
	data []byte
	pos  int
	err  error
}

func (r *treeReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.data[min(r.pos, len(r.data)):])
	if n <= 0 {
		r.err = errCorruptTree
		return 0
	}
	r.pos += n
	return v
}

func (r *treeReader) byte() byte {
	if r.pos >= len(r.data) {
		r.err = errCorruptTree
		return 0
	}
	r.pos++
	return r.data[r.pos-1]
}

func (r *treeReader) bytes(n int) []byte {
	if n < 0 || r.pos+n > len(r.data) {
		r.err = errCorruptTree
		return nil
	}
	r.pos += n
	return r.data[r.pos-n : r.pos]
}
