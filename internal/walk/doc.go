// Package walk turns the PATHs given on the command line into the Python files, stubs and
// notebooks cachelint analyses.
//
// It follows ruff's file discovery: directories are walked honouring .gitignore (nested
// files, negation, .git/info/exclude, the user's global excludes file and .ignore files),
// a default exclude list of virtualenvs, caches and build output that the `exclude`
// setting replaces and `extend-exclude` extends, while a file named explicitly is always
// kept unless force-exclude is set. Symbolic links met during a walk are never followed,
// so a walk cannot leave the tree or loop; problems with one directory become warnings
// and the walk goes on.
//
// FindProjectRoot locates the directory the whole project is indexed from when only a
// few files are reported on, as pre-commit does.
package walk
