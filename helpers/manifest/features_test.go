package manifest

import (
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/oracle"
)

// Every row is whole: a capability's or convention's label, the key that declares it, whether a
// manifest has it, and a reason that names that key, so that a left-out spec says what to write.
func TestEveryFeatureNamesItsLabelAndKey(t *testing.T) {
	for i, f := range Features() {
		optional := strings.HasPrefix(f.Label, label.ConventionPrefix) || strings.HasPrefix(f.Label, "needs-") ||
			f.Label == label.ReadsResolved || f.Label == label.RefusesClass
		if !optional || f.Key == "" || f.Has == nil || !strings.Contains(f.Reason, "({key})") {
			t.Errorf("row %d (%s, key %q): want a capability's or convention's label, a key, Has, and a reason that names ({key}): %q", i, f.Label, f.Key, f.Reason)
		}
		if strings.HasPrefix(f.Label, label.ConventionPrefix) && !strings.HasPrefix(f.Reason, "convention not declared: ") {
			t.Errorf("row %d (%s): a convention's reason starts \"convention not declared: \": %q", i, f.Label, f.Reason)
		}
	}
}

// A config that declares no other spelling of its key leaves out the spec that sets through them;
// one that declares a spelling runs it.
func TestKeySpellingsAreAConvention(t *testing.T) {
	m, err := Parse("m.yaml", []byte(good+"config: {set: [\"{bin}/t\", set, \"{key}\", \"{value}\"], get: [\"{bin}/t\", get, \"{key}\"], "+
		"unset: [\"{bin}/t\", unset, \"{key}\"], file: \"{home}/c.json\", key: k, file_key: k}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if why := m.LeftOut(oracle.LinuxIdle)[label.ConvKeySpellings]; !strings.Contains(why, "(config.key_alt)") {
		t.Errorf("config without key_alt: %s left out for %q; want the reason naming config.key_alt", label.ConvKeySpellings, why)
	}
	m.Config.KeyAlt = []string{"K"}
	if why, out := m.LeftOut(oracle.LinuxIdle)[label.ConvKeySpellings]; out {
		t.Errorf("config with key_alt: %s left out: %s", label.ConvKeySpellings, why)
	}
}
