package report

import "strings"

func indent(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ") }

// FirstLine is a message cut to its first line, with … when there was more. When that line is
// only a header ending in ':' (Gomega's "Unexpected error:", "Expected success, but got an
// error:"), the first line that says what happened is kept with it: a verdict that reads
// "Unexpected error: …" tells a CI log nothing.
func FirstLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	first := strings.TrimSpace(lines[0])
	if len(lines) == 1 {
		return first
	}
	if strings.HasSuffix(first, ":") {
		for _, l := range lines[1:] {
			l = strings.TrimSpace(l)
			if l == "" || (strings.HasPrefix(l, "<") && strings.HasSuffix(l, ":")) {
				continue // Gomega's "<*errors.errorString | 0x…>:" type line
			}
			first += " " + l
			break
		}
	}
	return first + " …"
}

// LastLines is s's last n lines on one line, joined by " | ": a build's or a command's last
// words, where its error is.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// ReceiptLine is the line of a failure that says the most: the oracle's first receipt line
// ("FAIL direct harness pid ...") when there is one, else the message's first line.
func ReceiptLine(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "FAIL ") {
			return strings.TrimPrefix(t, "FAIL ")
		}
	}
	return FirstLine(msg)
}
