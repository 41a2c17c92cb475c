// Package glibc228 makes a cgo build of cachelint on a newer glibc (Debian bookworm's 2.36)
// run on any glibc from 2.28 on. scripts/dist.sh builds with -tags glibc228, which links
// it in through cmd/cachelint.
//
// Why it is needed: glibc 2.34 moved libpthread and libdl into libc and gave the moved
// functions (pthread_create, dlopen, ...) and __libc_start_main, which the C start files
// call, new symbol versions. A binary linked against 2.34 or later asks for those versions
// and an older loader refuses it ("version `GLIBC_2.34' not found"), although the
// functions themselves are as old as the architecture. Nothing in cachelint uses a newer
// function: Go's runtime/cgo starts threads, purego dlopens libcuda.so.1 for probe.
//
// What it does: compat.c defines each of those functions under its own name, hidden, so the
// executable's references (the C start files', runtime/cgo's, purego's) bind to it; it
// calls the glibc function bound with .symver to the oldest version, the one every glibc
// of the architecture has (GLIBC_2.2.5 on amd64, GLIBC_2.17 on arm64). Hidden, they are not
// exported, so libraries loaded later (libcuda.so.1) still call glibc's own. libpthread.so.0
// and libdl.so.2 are linked in as well: a glibc before 2.34 defines those old versions
// there, and from 2.34 on they are empty stubs. The list is exactly what a bookworm build
// needs above 2.28 (readelf -V); scripts/dist.sh fails, naming the symbols, if a new one
// appears.
//
// __libc_start_main is the one whose meaning changed: from 2.34 the start file passes no
// init function and libc runs the program's DT_INIT and init array itself, while an
// older libc runs only the init function it is given. The stand-in therefore passes one
// that does what the old start files' __libc_csu_init did (_init, then the init array);
// a newer libc, handed an init function, runs it instead of its own, so the constructors
// run once on either.
package glibc228
