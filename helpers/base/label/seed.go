package label

// Sentence is a seed sentence a promise spec checks: its label key and the seed's own words.
type Sentence struct {
	Key string
	// Quote is the seed's words; " ... " joins fragments that each occur in the seed, in order.
	// The stored seed lost the spaces around its code spans, so a quote is matched with every
	// space removed (seed_test.go).
	Quote string
	// Reading says what the kit reads the sentence to promise, where the words alone do not.
	Reading string
}

// Seed is every seed sentence a promise spec may check, in the seed's order. A seed label names
// one of these keys; the catalogue quotes it.
var Seed = []Sentence{
	{SeedBackground, "On macOS each session's harness now starts with PRIO_DARWIN_BG", "Linux: the class the manifest's background.linux names"},
	{SeedHarness, "each session's harness now starts", "the harness its profile's command names, with the arguments it hands"},
	{SeedForkExec, "The class is set in the harness between fork and exec, both for a direct child (agent.rs) and under an agent host (SpawnSpec.cpu_class, which the daemon decides).", "on every thread: a class set from outside after exec misses threads and the tools they start"},
	{SeedInherit, "So the harness and every tool it starts inherit it.", ""},
	{SeedNoRenice, "No running process is reniced.", "the run's watch, judged in every spec's cleanup; the daemon, the host and the kit at their own class"},
	{SeedNoRaise, "No raise for the focused chat. ... So every session starts at background.", "and stays there while it runs"},
	{SeedFirstSource, "The first source that sets it wins: ... A profile's env ACPMUX_SESSION_CPU_CLASS (normal or background) ... The daemon's env ... Config session.cpuClass ... Otherwise background.", "a value is normal or background and nothing else; for every session: what one decides or leaves never reaches another (issue 69)"},
	{SeedOptOut, "so one build-heavy profile can opt out.", "with normal"},
	{SeedConfig, "acpmux config --set session.cpu_class=normal", "a config round trip the next session sees at once, even within one tick of the file's timestamp"},
	{SeedCompat, "a spawn spec from an older daemon has no cpu_class and starts its harness as before.", ""},
	{SeedLinuxIgnores, "Linux reads the class and ignores it", ""},
	{SeedEnvRef, "a ${env:...} reference that resolves to normal", "a reference resolves once, from the daemon's env, with no shell; a bad one is refused"},
}

// SeedSentence is the sentence of key, and whether it is one.
func SeedSentence(key string) (Sentence, bool) {
	for _, s := range Seed {
		if s.Key == key {
			return s, true
		}
	}
	return Sentence{}, false
}
