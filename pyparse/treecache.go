package pyparse

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
	"sync"
	"unsafe"
)

// TreeCache keeps parsed trees between runs, keyed by TreeKey: a run that finds a file's
// tree there skips tree-sitter for it (most of a run's time; a commit changes a few files
// of the hundreds a run parses). Get returns nil when it holds no tree for the key; the tree
// it returns is decoded where it lies (DecodeTree), so it must stay as it is for as long as
// the process runs, and may be read-only memory (a mapped file), but must not be bytes it
// returned before: the File decoded from them owns its nodes (analyses tell nodes apart by
// address), so the same key asked again (the same text at another path) gets a copy. Holds
// says whether it holds a tree for the key (a parse starts with the files it does not).
// Each may be called from several parse workers at once.
type TreeCache interface {
	Get(key string) []byte
	Put(key string, tree []byte)
	Holds(key string) bool
}

// treeFormat names the layout of an encoded tree and what the parse keeps of a tree (which
// nodes, which errors, what model): change it whenever either changes.
const treeFormat = "cachelint-tree-7"

var (
	grammarOnce sync.Once
	grammarID   []byte
)

// TreeKey is the key of src's tree: the hash of its text's SHA-256, of the encoding, of the
// grammar's symbol and field tables (a tree's ids mean nothing under another grammar) and
// of the layout of a tree's array in memory (its node size and byte order).
func TreeKey(src []byte) string {
	return treeKeyOf(sha256.Sum256(src))
}

// treeKeyOf is TreeKey of the text whose SHA-256 is text.
func treeKeyOf(text [32]byte) string {
	grammarOnce.Do(func() {
		loadLanguage()
		h := sha256.New()
		h.Write([]byte(treeFormat + "\x00" + strings.Join(kindNames, "\x00") + "\x00\x00" + strings.Join(fieldNames, "\x00")))
		// A tree's array is kept as it lies in memory: its layout is part of the format.
		fmt.Fprintf(h, "\x00node %d bytes, %s", nodeSize, binary.NativeEndian)
		grammarID = h.Sum(nil)
	})
	h := sha256.New()
	h.Write(grammarID)
	h.Write(text[:])
	return hex.EncodeToString(h.Sum(nil))
}

// EncodeTree writes f's text, tree, syntax errors and model: a header (the format, the
// text's length, the text itself, the errors, the model as appendModel writes it, the
// tree's number of nodes and of elements), then the
// tree's array itself as it lies in memory (see Node: its nodes, then its table of line
// starts and large child counts), starting at a multiple of 8 bytes, then a CRC-32C of all
// that, so that a tree changed on disk is refused, not read as another tree (one bit
// flipped in a kept tree gave a wrong analysis one time in four without it). DecodeTree then
// takes the array as it is instead of building it node by node (on diffusers' 551 parsed
// files, reading the trees back as varints and laying them out again took 80 ms of CPU of a
// 430 ms edited run); the entry is some three times larger, the tree's size in memory. The
// text is kept so that a later run can take an unchanged file's text and tree together, by
// the hash of the text an earlier run recorded (KnowTexts), without reading and hashing the
// file: a tenth of the CPU of an edited run of diffusers went to reading and hashing the
// texts of the 531 files whose trees it took from the cache. The model is kept so that an
// unchanged file's model is read rather than built again from its tree (modelcodec.go).
func EncodeTree(f *File) []byte {
	nodes := f.Root.array()
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(nodes))), len(nodes)*nodeSize)
	buf := make([]byte, 0, 64+len(raw))
	buf = append(buf, treeFormat...)
	buf = binary.AppendUvarint(buf, uint64(len(f.Src)))
	buf = append(buf, f.Src...)
	buf = binary.AppendUvarint(buf, uint64(len(f.Errors)))
	for _, e := range f.Errors {
		buf = binary.AppendUvarint(buf, uint64(e.Line))
		buf = binary.AppendUvarint(buf, uint64(e.Col))
		buf = binary.AppendUvarint(buf, uint64(len(e.Msg)))
		buf = append(buf, e.Msg...)
	}
	model := appendModel(nil, f)
	buf = binary.AppendUvarint(buf, uint64(len(model)))
	buf = append(buf, model...)
	buf = binary.AppendUvarint(buf, uint64(-f.Root.up))
	buf = binary.AppendUvarint(buf, uint64(len(nodes)))
	buf = append(buf, make([]byte, -len(buf)&(treeAlign-1))...)
	buf = append(buf, raw...)
	return binary.BigEndian.AppendUint32(buf, crc32.Checksum(buf, treeCRC))
}

// treeAlign is the alignment of a tree's array in an encoded tree (a Node's is 4; an entry
// read into a fresh buffer starts at a multiple of 8).
const treeAlign = 8

// treeCRC is the CRC-32C table of encoded trees.
var treeCRC = crc32.MakeTable(crc32.Castagnoli)

// errCorruptTree is a cached tree that does not decode into a tree of src.
var errCorruptTree = errors.New("corrupt cached tree")

// DecodeTree builds the File of path from src and its encoded tree, as Parse would have; an
// entry that is not a whole, consistent tree of src is an error, never a panic. The File's
// tree lies in data itself (when data is aligned as it is read): data must not be changed
// afterwards.
func DecodeTree(path string, src, data []byte) (*File, error) {
	return decodeTree(path, src, data, new(scratch))
}

// wholeEntry reports whether an encoded tree's checksum holds.
func wholeEntry(data []byte) bool {
	if len(data) < len(treeFormat)+4 {
		return false
	}
	data, sum := data[:len(data)-4], data[len(data)-4:]
	return crc32.Checksum(data, treeCRC) == binary.BigEndian.Uint32(sum)
}

// readHeader reads a whole entry's (wholeEntry) format and text: a reader at what follows
// the text, over the entry less its checksum, and the text (nil, nil for an entry of
// another format or a header that does not read).
func readHeader(data []byte) (*treeReader, []byte) {
	data = data[:len(data)-4]
	if string(data[:len(treeFormat)]) != treeFormat {
		return nil, nil
	}
	d := &treeReader{data: data, pos: len(treeFormat)}
	text := d.bytes(int(min(d.uvarint(), uint64(len(data)))))
	if d.err != nil {
		return nil, nil
	}
	return d, text[:len(text):len(text)]
}

// decodeTree is DecodeTree with sc's buffers, which a parser keeps from file to file.
func decodeTree(path string, src, data []byte, sc *scratch) (*File, error) {
	if !wholeEntry(data) {
		return nil, errCorruptTree
	}
	return decodeWhole(path, src, data, sc)
}

// decodeWhole is decodeTree of an entry whose checksum holds (wholeEntry). A nil src is the
// entry's own text (readHeader's): the checksum covers it and the tree's table of line starts
// alike, so the table is checked for its shape (starts in order, inside the text) rather
// than against the text's lines, which finding would cost a pass over the text.
func decodeWhole(path string, src, data []byte, sc *scratch) (f *File, err error) {
	loadLanguage()
	defer func() {
		if v := recover(); v != nil {
			f, err = nil, fmt.Errorf("%w: %v", errCorruptTree, v)
		}
	}()
	d, text := readHeader(data)
	if d == nil {
		return nil, errCorruptTree
	}
	own := src == nil
	if own {
		src = text
	} else if len(text) != len(src) {
		return nil, errCorruptTree
	}
	data = d.data
	f = &File{Path: path, Src: src}
	// Each error takes at least 3 bytes: counts beyond what the rest of the entry can hold
	// are garbage, refused before anything is allocated for them.
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
	model := d.bytes(int(min(d.uvarint(), uint64(len(data)))))
	count, size := d.uvarint(), d.uvarint()
	d.bytes(-d.pos & (treeAlign - 1))
	if d.err != nil || count < 1 || count >= size || size > math.MaxInt32 || uint64(len(data)-d.pos) != size*uint64(nodeSize) {
		return nil, errCorruptTree
	}
	raw := data[d.pos:]
	var nodes []Node
	if uintptr(unsafe.Pointer(unsafe.SliceData(raw)))%unsafe.Alignof(Node{}) == 0 {
		nodes = unsafe.Slice((*Node)(unsafe.Pointer(unsafe.SliceData(raw))), size)
	} else {
		nodes = make([]Node, size)
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(nodes))), len(raw)), raw)
	}
	var lines []int
	if !own {
		sc.lines = appendLineStarts(sc.lines[:0], src)
		lines = sc.lines
	}
	if !wholeTree(nodes, int32(count), int32(len(src)), lines) {
		return nil, errCorruptTree
	}
	f.Root = &nodes[0]
	if !f.readModel(model, nodes, int32(count)) {
		return nil, errCorruptTree
	}
	return f, nil
}

// wholeTree reports whether nodes is a tree's array (see Node) of count nodes over a text of
// size bytes whose line starts are lines: its table holds those lines (with lines nil, line
// starts from 0 in order, none past the text) and the large child counts (by element, each
// of a node whose own count says the table holds it); every node
// lies inside the text and has a kind and field of the grammar; the root is element 0;
// each node's children are consecutive elements after it, inside the nodes, each a
// distance up to it that is their distance down from it; and the children number count-1
// in all. A child names one parent, and the root none, so the count-1 children are the
// other nodes, each once: a walk from the root meets every node once, each parent before
// its children.
func wholeTree(nodes []Node, count, size int32, lines []int) bool {
	per := int32(nodeSize / 4)
	table := unsafe.Slice((*int32)(unsafe.Pointer(&nodes[count])), (int32(len(nodes))-count)*per)
	if len(table) < 2 || table[0] < 1 || lines != nil && int(table[0]) != len(lines) || table[1] < 0 || int64(table[1]) > int64(count) {
		return false
	}
	nl, nm := int(table[0]), int(table[1])
	if 2+nl+2*nm > len(table) || (len(table)-(2+nl+2*nm)) >= int(per) {
		return false
	}
	if lines != nil {
		for i, l := range lines {
			if table[2+i] != int32(l) {
				return false
			}
		}
	} else {
		starts := table[2 : 2+nl]
		if starts[0] != 0 {
			return false
		}
		for i := 1; i < nl; i++ {
			if starts[i] <= starts[i-1] || starts[i] > size {
				return false
			}
		}
	}
	many := table[2+nl : 2+nl+2*nm]
	for j := 0; j < len(many); j += 2 {
		e := many[j]
		if e < 0 || e >= count || j > 0 && e <= many[j-2] || many[j+1] < manyKids || many[j+1] >= count || nodes[e].count != manyKids {
			return false
		}
	}
	if nodes[0].up != -count {
		return false
	}
	children, large := int64(0), 0
	for i := range count {
		n := &nodes[i]
		if n.Start < 0 || n.End < n.Start || n.End > size {
			return false
		}
		if k := n.meta & kindMask; k != kindError && int(k) >= len(kindNames) || int(n.fieldIndex()) >= len(fieldNames) {
			return false
		}
		k := int32(n.count)
		if n.count == manyKids {
			if large >= nm { // more such nodes than the table holds counts for
				return false
			}
			k = many[2*large+1]
			large++
		}
		if k == 0 {
			if n.down != 0 {
				return false
			}
			continue
		}
		if n.down <= 0 || int64(i)+int64(n.down)+int64(k) > int64(count) {
			return false
		}
		for c := i + n.down; c < i+n.down+k; c++ {
			if nodes[c].up != c-i {
				return false
			}
		}
		children += int64(k)
	}
	return large == nm && children == int64(count)-1
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

func (r *treeReader) bytes(n int) []byte {
	if n < 0 || r.pos+n > len(r.data) {
		r.err = errCorruptTree
		return nil
	}
	r.pos += n
	return r.data[r.pos-n : r.pos]
}
