package release

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
)

const usage = `usage:
  release version DESCRIBE COMMITS   the PEP 440 version for git describe output
  release check-version VERSION      fail unless VERSION is canonical PEP 440
  release wheel -binary FILE -version VERSION -goarch ARCH -out DIR
                                     write the wheel for a linux/ARCH binary, print its path
`

// Run is internal/tools/release: the steps of scripts/dist.sh that are not the go
// command's. It returns the exit code: 0, 1 on failure, 2 on a usage error.
func Run(args []string, stdout, stderr io.Writer) int {
	err := run(args, stdout, stderr)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "release: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprint(stderr, usage)
		return 2
	}
	return 1
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"no command"}
	}
	switch cmd, args := args[0], args[1:]; cmd {
	case "version":
		if len(args) != 2 {
			return usageError{"version takes DESCRIBE and COMMITS"}
		}
		commits, err := strconv.Atoi(args[1])
		if err != nil {
			return usageError{fmt.Sprintf("COMMITS %q is not a number", args[1])}
		}
		v, err := Version(args[0], commits)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, v)
		return nil
	case "check-version":
		if len(args) != 1 {
			return usageError{"check-version takes VERSION"}
		}
		return CheckVersion(args[0])
	case "wheel":
		return runWheel(args, stdout, stderr)
	default:
		return usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
}

func runWheel(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("wheel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var w Wheel
	var goarch, out string
	fs.StringVar(&w.Binary, "binary", "", "the cachelint executable `FILE`")
	fs.StringVar(&w.Version, "version", "", "PEP 440 `VERSION`")
	fs.StringVar(&goarch, "goarch", "", "the binary's `GOARCH` (amd64, arm64)")
	fs.StringVar(&out, "out", "", "`DIR` to write the wheel in")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("wheel takes no arguments, got %q", fs.Args())}
	}
	if w.Binary == "" || w.Version == "" || goarch == "" || out == "" {
		return usageError{"wheel needs -binary, -version, -goarch and -out"}
	}
	var err error
	if w.Platform, err = PlatformTag("linux", goarch); err != nil {
		return err
	}
	path, err := w.Write(out)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, path)
	return nil
}
