//go:build linux && cgo && (amd64 || arm64)

// See doc.go. Each function here has the name of the glibc function it stands for, so the
// references in the C start files, runtime/cgo and purego bind to it, and it calls that
// function at the architecture's first glibc version. All are hidden: the executable does
// not export them (it links with -rdynamic), so libraries it loads, libcuda.so.1 among them,
// still call glibc directly; dlopen and dlsym look at their caller.
//
// The prototypes are written out instead of taken from the headers, which declare the
// same names with default visibility; the types are the ABI's (pthread_t is an unsigned
// long, pthread_key_t an unsigned int, the rest pointers and size_t).
#include <stddef.h>

#if defined(__x86_64__)
#define GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define GLIBC_BASE "GLIBC_2.17"
#else
#error "glibc228: no base glibc version known for this architecture"
#endif

#define HIDDEN __attribute__((visibility("hidden")))

// OLD(ret, name, params, args) declares name_old as name@GLIBC_BASE and defines name,
// hidden, calling it.
#define OLD(ret, name, params, args)                                    \
	extern ret name##_old params;                                   \
	__asm__(".symver " #name "_old," #name "@" GLIBC_BASE);         \
	HIDDEN ret name params { return name##_old args; }

OLD(int, pthread_create, (unsigned long *t, const void *attr, void *(*f)(void *), void *arg), (t, attr, f, arg))
OLD(int, pthread_sigmask, (int how, const void *set, void *old), (how, set, old))
OLD(int, pthread_getattr_np, (unsigned long t, void *attr), (t, attr))
OLD(int, pthread_attr_getstack, (const void *attr, void **addr, size_t *size), (attr, addr, size))
OLD(int, pthread_attr_getstacksize, (const void *attr, size_t *size), (attr, size))
OLD(int, pthread_key_create, (unsigned int *key, void (*destructor)(void *)), (key, destructor))
OLD(int, pthread_setspecific, (unsigned int key, const void *v), (key, v))
OLD(void *, dlopen, (const char *file, int mode), (file, mode))
OLD(void *, dlsym, (void *handle, const char *name), (handle, name))
OLD(int, dlclose, (void *handle), (handle))
OLD(char *, dlerror, (void), ())

typedef void (*initfn)(int, char **, char **);

// Bounds of the executable's init array, defined by the linker; _init comes from crti.o.
extern initfn __init_array_start[] HIDDEN;
extern initfn __init_array_end[] HIDDEN;
extern void _init(void);

// csu_init is glibc's old __libc_csu_init for a dynamic executable (the loader runs the
// preinit array itself).
static void csu_init(int argc, char **argv, char **envp) {
	_init();
	size_t n = (size_t)(__init_array_end - __init_array_start);
	for (size_t i = 0; i < n; i++) {
		__init_array_start[i](argc, argv, envp);
	}
}

extern int __libc_start_main_old(int (*main)(int, char **, char **), int argc, char **argv,
	initfn init, void (*fini)(void), void (*rtld_fini)(void), void *stack_end);
__asm__(".symver __libc_start_main_old,__libc_start_main@" GLIBC_BASE);

// The start file calls this with no init function (2.34 and later): hand the old one ours.
HIDDEN int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
	initfn init, void (*fini)(void), void (*rtld_fini)(void), void *stack_end) {
	(void)init;
	(void)fini;
	return __libc_start_main_old(main, argc, argv, csu_init, NULL, rtld_fini, stack_end);
}
