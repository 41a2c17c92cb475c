// Package allocconf is cachelint's knowledge of PyTorch's CUDA caching-allocator
// configuration: the PYTORCH_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF value language, which
// keys and value forms each PyTorch version accepts, what PyTorch does with a bad value,
// which settings do nothing as written, which environment variables are read and when,
// and which torch calls initialise CUDA (after which the setting is too late).
//
// It holds no Python parsing: the analyzers for CL010, CL011 and CL012 find the
// assignments and hand the literal text (or its literal parts) to Parse or ParseSegments.
//
// Everything here was checked against PyTorch's source; each table entry names the file
// and function it comes from. PyTorch changed its parser between 2.9 and 2.10 (the
// AcceleratorAllocatorConfig refactor, pytorch#165135), so checks run once per version
// profile (see Profiles) and every Problem says which versions it is about.
package allocconf
