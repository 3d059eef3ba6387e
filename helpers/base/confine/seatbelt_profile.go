package confine

import (
	"fmt"
	"strings"

	"github.com/classproof/classproof/helpers/base/files"
)

// seatbeltProfile is p in Seatbelt's language (macOS; kept apart from the darwin code so that its
// text is tested on any OS). Paths are the real ones: /tmp is /private/tmp on macOS, and Seatbelt
// matches the resolved path. Writes are denied but below p's folders and files; so are hard links
// (file-link, an operation of its own that file-write* may not cover under (allow default), as
// public profiles deny it on its own): a link made in an allowed folder to a file elsewhere (a
// report, the ledger) would make that file writable through it.
func seatbeltProfile(p Policy, kernel []string) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n(deny file-link)\n")
	for _, op := range []string{"file-write*", "file-link"} {
		fmt.Fprintf(&b, "(allow %s", op)
		for _, d := range append(append([]string(nil), p.Dirs...), kernel...) {
			fmt.Fprintf(&b, "\n  (subpath %s)", sbplQuote(realPath(d)))
		}
		if op == "file-write*" {
			for _, f := range append(append([]string(nil), p.Files...), devices...) {
				fmt.Fprintf(&b, "\n  (literal %s)", sbplQuote(realPath(f)))
			}
		}
		b.WriteString(")\n")
	}
	return b.String()
}

// realPath is where Seatbelt meets path: every symlink in its longest existing part followed, the
// rest joined on as written (files.Resolved, as Landlock's rules are opened). A folder the kit
// makes later (a {cache} made on first use, below /tmp, which is /private/tmp) would otherwise keep
// the path as written, which no write ever matches: the launcher was refused a folder it may write.
func realPath(path string) string { return files.Resolved(path) }

// sbplQuote is a Seatbelt string literal (a Scheme string: backslash and double quote escaped).
func sbplQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
