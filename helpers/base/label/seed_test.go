package label

import (
	"os"
	"strings"
	"testing"
)

// seedFile is the seed the promises come from, beside the checkout in the project's own layout
// (../shared/seeds); a clone without it skips the check, which the project's CI has.
const seedFile = "../../../../shared/seeds/000_693c4be72e695f2a.txt"

func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

// TestSeedQuotesAreTheSeeds checks every quote's fragments occur in the seed, in order, so a
// promise spec cannot cite words the seed does not say.
func TestSeedQuotesAreTheSeeds(t *testing.T) {
	b, err := os.ReadFile(seedFile)
	if os.IsNotExist(err) {
		t.Skipf("no seed at %s (a clone outside the project's layout)", seedFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	if msg := misquoted(string(b), Seed); msg != "" {
		t.Error(msg)
	}
}

func TestMisquotedNamesTheFragment(t *testing.T) {
	seed := "Fix. The class is set   between fork and exec. No running process is reniced."
	if msg := misquoted(seed, []Sentence{{Key: "k", Quote: "The class is set between fork ... reniced."}}); msg != "" {
		t.Errorf("a quote the seed says: %s", msg)
	}
	for _, q := range []string{"The class is set after exec", "reniced. ... The class is set"} {
		msg := misquoted(seed, []Sentence{{Key: "k", Quote: q}})
		if !strings.Contains(msg, "seed sentence k") {
			t.Errorf("quote %q: got %q, want it named as not in the seed", q, msg)
		}
	}
}

func TestSeedKeysAreSeedLabelsOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Seed {
		if !strings.HasPrefix(s.Key, SeedPrefix) || seen[s.Key] {
			t.Errorf("seed key %q: want a unique label starting %q", s.Key, SeedPrefix)
		}
		seen[s.Key] = true
		if _, ok := SeedSentence(s.Key); !ok {
			t.Errorf("SeedSentence(%q) not found", s.Key)
		}
	}
}

// misquoted says which quote has a fragment the seed does not hold after the one before it.
func misquoted(seed string, sentences []Sentence) string {
	text := squeeze(seed)
	var bad []string
	for _, s := range sentences {
		rest := text
		for _, frag := range strings.Split(s.Quote, " ... ") {
			i := strings.Index(rest, squeeze(frag))
			if i < 0 {
				bad = append(bad, "seed sentence "+s.Key+": "+`"`+frag+`" is not in the seed (after the fragment before it)`)
				break
			}
			rest = rest[i+len(squeeze(frag)):]
		}
	}
	return strings.Join(bad, "\n")
}
