package pyparse

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIdentSet(t *testing.T) {
	set := newIdentSet([]string{"empty_cache", "free_gpu"})
	for src, want := range map[string]bool{
		"torch.cuda.empty_cache()":       true,
		"x = 'free_gpu'":                 true,
		"my_empty_cache_helper()":        false, // whole tokens only
		"empty_cachex":                   false,
		"free_gpu_memory()":              false,
		"# nothing\n":                    false,
		"é = free_gpu":                   true,
		"":                               false,
		"\xff\xfe empty_cache \x00 junk": true,
	} {
		var sig signature
		if got := set.scan([]byte(src), &sig, false); got != want {
			t.Errorf("scan(%q) = %v, want %v", src, got, want)
		}
		// The signature never loses a name the file mentions.
		if want && !set.mayMention(&sig) {
			t.Errorf("signature of %q lost a name", src)
		}
	}
}

// TestMentionsInCode: a mention is a token in code, in an f-string, or a string that is the
// name alone; comments and other strings mention nothing, except for text names. Quotes
// and hashes inside strings and comments do not throw the lexer off.
func TestMentionsInCode(t *testing.T) {
	set := newIdentSet([]string{"empty_cache", "accelerator.clear", TextName("PYTORCH_CUDA_ALLOC_CONF")})
	for src, want := range map[string]bool{
		"torch.cuda.empty_cache()":                                            true,
		"# torch.cuda.empty_cache()\n":                                        false,
		"x = 1  # then empty_cache\n":                                         false,
		"def f():\n    \"\"\"Calls empty_cache once.\"\"\"\n":                 false,
		"CODE = 'torch.cuda.empty_cache()'\nexec(CODE)":                       false,
		"CODE = '''\ntorch.cuda.empty_cache()\n'''\n":                         false,
		"getattr(torch.cuda, 'empty_cache')()":                                true,
		"hasattr(torch.cuda, \"empty_cache\")":                                true,
		"__all__ = [\"empty_cache\"]":                                         true,
		"print(f\"{torch.cuda.empty_cache()}\")":                              true,
		"print(F'freed {empty_cache}')":                                       true,
		"print(rf\"{empty_cache}\")":                                          true,
		"s = '#'; empty_cache()":                                              true,
		"s = \"it's\"; empty_cache()":                                         true,
		"# it's\nempty_cache()":                                               true,
		"s = 'a\\'b'; empty_cache()":                                          true,
		"s = r'a\\'; empty_cache()":                                           false, // r'a\' goes on: the quote is escaped
		"s = r'a\\'' ; empty_cache()":                                         true,
		"s = '''a ' b '' c'''; empty_cache()":                                 true,
		"s = 'unterminated\nempty_cache()":                                    true, // a bad line ends its string
		"doc = \"\"\"\nempty_cache()\n":                                       true, // a broken file's unclosed triple quotes read on as code
		"s = 'a\\\nb'; empty_cache()":                                         true, // a backslash continues the string
		"s = 'a\\\r\nb'; empty_cache()":                                       true,
		"s = b'empty_cache'":                                                  true,
		"s = 'accelerator'; accelerator.clear()":                              true,
		"# accelerator\nclear()":                                              false,
		"os.environ['PYTORCH_CUDA_ALLOC_CONF'] = 'expandable_segments:True'":  true,
		"run('PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python x.py')": true,
		"# export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n":         false,
	} {
		var sig signature
		if got := set.scan([]byte(src), &sig, false); got != want {
			t.Errorf("scan(%q) = %v, want %v", src, got, want)
		}
		if want && !set.mayMention(&sig) {
			t.Errorf("signature of %q lost a name", src)
		}
	}
}

func TestSignatureFiltersLaterRounds(t *testing.T) {
	var sig signature
	newIdentSet([]string{"empty_cache"}).scan([]byte("def train(loader):\n    for batch in loader:\n        step(batch)\n"), &sig, false)
	if !newIdentSet([]string{"step"}).mayMention(&sig) {
		t.Fatal("a name the file mentions was filtered out")
	}
	misses := 0
	for _, name := range []string{"free_gpu_memory", "cleanup_cuda", "release_all", "flush_allocator", "clear_mem"} {
		if !newIdentSet([]string{name}).mayMention(&sig) {
			misses++
		}
	}
	if misses < 4 {
		t.Errorf("signature lets through %d of 5 absent names", 5-misses)
	}
}

// TestIdentSetPairs: a dotted needle matches a file that mentions both of its parts, in
// either order and anywhere, and no file that mentions only one.
func TestIdentSetPairs(t *testing.T) {
	set := newIdentSet([]string{"accelerator.clear", "empty_cache"})
	for src, want := range map[string]bool{
		"accelerator.clear()":      true,
		"self.accelerator.clear()": true,
		"d.clear()":                false,
		"from accelerate import Accelerator\nacc = accelerator\nacc.clear()": true,
		"accelerator.backward(loss)":                                         false,
		"clear(); accelerator":                                               true,
		"torch.cuda.empty_cache()":                                           true,
	} {
		var sig signature
		if got := set.scan([]byte(src), &sig, false); got != want {
			t.Errorf("scan(%q) = %v, want %v", src, got, want)
		}
		if want && !set.mayMention(&sig) {
			t.Errorf("signature of %q lost a pair", src)
		}
	}
	var sig signature
	newIdentSet([]string{"x"}).scan([]byte("d.clear()"), &sig, false)
	if newIdentSet([]string{"accelerator.clear"}).mayMention(&sig) && newIdentSet([]string{"accelerator"}).mayMention(&sig) {
		t.Error("signature lets a pair through on one part")
	}
}

// TestImportedName: an imported-name needle matches a file whose import statements name the
// module and which mentions the name anywhere, however the import is spelt, and no file that
// uses the words only outside imports.
func TestImportedName(t *testing.T) {
	set := newIdentSet([]string{ImportedName("memory", "cleanup")})
	for src, want := range map[string]bool{
		"from utils.memory import cleanup\ncleanup()\n":                  true,
		"from .memory import cleanup":                                    true,
		"from . import memory\nmemory.cleanup()":                         true,
		"import utils.memory as m\nm.cleanup()":                          true,
		"from utils import (\n    io,\n    memory,\n)\nmemory.cleanup()": true,
		"from utils import io, \\\n    memory\nmemory.cleanup()":         true,
		"    import memory  # local\n    memory.cleanup()":               true,
		"import os; import memory\nmemory.cleanup()":                     true,
		// The words, but no import of the module.
		"memory = {}\ndef cleanup():\n    memory.clear()\n":                    false,
		"import os\nmemory = os.getenv('X')\ncleanup(memory)\n":                false,
		"import os; memory = 1\ncleanup()":                                     false,
		"from utils import (\n    io,\n)\nmemory = 1\ncleanup()":               false,
		"from utils.memory import free\n":                                      false, // the module, not the name
		"# from memory import nothing\ncleanup()":                              false, // comments name nothing
		"x = 1\nfrom torch import nn\nmemory.cleanup()  # memory not imported": false,
	} {
		var sig signature
		if got := set.scan([]byte(src), &sig, false); got != want {
			t.Errorf("scan(%q) = %v, want %v", src, got, want)
		}
		if want && !set.mayMention(&sig) {
			t.Errorf("signature of %q lost an imported name", src)
		}
	}
	// A later round reads the signature: a file that uses the words outside imports only is
	// not read again.
	var sig signature
	newIdentSet([]string{"x"}).scan([]byte("memory = {}\ncleanup(memory)\nimport os\n"), &sig, false)
	if set.mayMention(&sig) {
		t.Error("signature lets an imported name through without the import")
	}
}

// TestMentionsCoverTheTree: every identifier the parser finds in a file is a mention by
// the prefilter's lexer (which reads no tree), and so is a string that is one identifier
// (a getattr name). Over every Python file under testdata, and any directory named in
// CACHELINT_MENTIONS_CORPUS.
func TestMentionsCoverTheTree(t *testing.T) {
	roots := []string{filepath.Join("..", "testdata")}
	if dir := os.Getenv("CACHELINT_MENTIONS_CORPUS"); dir != "" {
		roots = append(roots, dir)
	}
	p, err := NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	files := 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".py") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f, err := p.Parse(context.Background(), path, src)
			if err != nil {
				return nil // over its budget: nothing to compare
			}
			files++
			names := map[string]bool{}
			f.Root.Walk(func(n *Node) bool {
				switch n.Kind() {
				case "identifier":
					names[n.Text(src)] = true
				case "string_content":
					if s := n.Text(src); isIdentifier([]byte(s)) && n.Parent().ChildCount() == 1 {
						names[s] = true // the whole string
					}
				}
				return true
			})
			for name := range names {
				var sig signature
				if !newIdentSet([]string{name}).scan(src, &sig, false) {
					t.Errorf("%s: %q is in the tree but no mention", path, name)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("read %d files", files)
	}
}

// TestSignatureTellsCodeFromStrings: a file's signature answers as a scan of its text does
// for names in code and in strings: a string's word is a mention of a text name (an
// allocator variable counts in any string) and of no other needle; a name in code, or a
// string that is a name alone, is a mention of both.
func TestSignatureTellsCodeFromStrings(t *testing.T) {
	src := []byte("DOC = 'set PYTORCH_CUDA_ALLOC_CONF before the run'\nx = cleanup\nf = getattr(torch.cuda, \"empty_cache\")\n")
	sig := new(signature)
	noNeedles.scan(src, sig, false)
	for _, c := range []struct {
		needle string
		want   bool
	}{
		{TextName("PYTORCH_CUDA_ALLOC_CONF"), true},
		{"PYTORCH_CUDA_ALLOC_CONF", false},
		{"before", false},
		{"cleanup", true},
		{TextName("cleanup"), true},
		{"empty_cache", true},
		{TextName("empty_cache"), true},
	} {
		set := newIdentSet([]string{c.needle})
		if got := set.mayMention(sig); got != c.want {
			t.Errorf("signature: %q mentioned %v, want %v", c.needle, got, c.want)
		}
		if got := set.scan(src, nil, false); got != c.want {
			t.Errorf("scan: %q mentioned %v, want %v", c.needle, got, c.want)
		}
	}
}
