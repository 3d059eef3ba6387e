package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/classproof/classproof/helpers/base/git"
	"github.com/classproof/classproof/helpers/binaries"
)

var versionCommand = command{"version", "the kit's version, the Ginkgo and Go it was built with", "classproof version", "0", versionCmd}

// versionCmd prints the kit's module version (or the commit of a checkout) and the Ginkgo and Go
// versions it was built with.
func versionCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	kit, ginkgo := "unknown", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		kit = bi.Main.Version
		if binaries.DistVersion != "" {
			// A release archive's CLI (make dist): built from a checkout with -buildvcs=false,
			// so the build info knows no version; the one it was stamped with is its own.
			kit = binaries.DistVersion + " (release archive)"
		} else if kit == "" || kit == "(devel)" {
			kit = "a checkout" + checkoutCommit()
			settings := map[string]string{}
			for _, s := range bi.Settings {
				settings[s.Key] = s.Value
			}
			if rev := settings["vcs.revision"]; rev != "" {
				kit = "commit " + rev
				if settings["vcs.modified"] == "true" {
					kit += " with uncommitted changes"
				}
			}
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/onsi/ginkgo/v2" {
				ginkgo = d.Version
			}
		}
	}
	fmt.Printf("classproof %s\nginkgo %s (the suites run with the ginkgo CLI go.mod pins)\n%s %s/%s\n", kit, ginkgo, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitPassed
}

// checkoutCommit names the commit of the kit's own checkout, when git can say.
func checkoutCommit() string {
	dir, err := binaries.KitDir()
	if err != nil {
		return ""
	}
	rev, err := git.Run(dir, "rev-parse", "--short=12", "HEAD")
	if err != nil {
		return ""
	}
	s := " at commit " + rev
	if dirty, _ := git.Run(dir, "status", "--porcelain", "--untracked-files=no"); dirty != "" {
		s += " with uncommitted changes"
	}
	return s
}
