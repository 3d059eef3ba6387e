package manifest

import (
	"regexp"
	"slices"
	"sort"
	"strings"
)

// A spec is either a promise of the seed, checked on every launcher, or a convention that a target
// declares in its manifest when it keeps it. A spec that needs an optional capability or a
// convention carries a label (helpers/base/label); a target that lacks it has those specs left out
// before the run, with the reason, like a lane's platform filter (never skipped at run time, never
// failed). Which label each capability and convention has, and its reason, is one row of the
// feature table (features.go).

// Mention kinds a refusal may name (conventions.refusals_name).
const (
	MentionProfile  = "profile"  // the refused profile's name
	MentionKey      = "key"      // the class env var (class_env)
	MentionValue    = "value"    // the offending value or reference, as written
	MentionAccepted = "accepted" // the accepted values: normal and background
	MentionSource   = "source"   // where the value came from (conventions.refusal_sources)
	MentionFile     = "file"     // the config file or folder a config refusal is about
)

var mentionKinds = []string{MentionProfile, MentionKey, MentionValue, MentionAccepted, MentionSource, MentionFile}

var mentionMeaning = map[string]string{
	MentionProfile:  "the refused profile",
	MentionKey:      "the class env var",
	MentionValue:    "the offending value or reference",
	MentionAccepted: "the accepted values",
	MentionSource:   "the source of the value",
	MentionFile:     "the config file or folder",
}

// Conventions are a target's own choices, each checked only when declared.
type Conventions struct {
	// FoldCase: a class value is taken in any case with surrounding spaces.
	FoldCase bool `yaml:"fold_case"`
	// EmptyIsUnset: an empty value counts as unset, so the next source decides.
	EmptyIsUnset bool `yaml:"empty_is_unset"`
	// RefusalsName lists what every refusal names: profile, key, value, accepted, source, file.
	RefusalsName []string `yaml:"refusals_name"`
	// RefusalSources are regexps for how a refusal names a source, by the kit's name for it
	// (daemon); needed with refusals_name: source.
	RefusalSources map[string]string `yaml:"refusal_sources"`
	// ConfigGetUnset is what `config --get` does for an unset key: "error" (a non-zero exit) or
	// "empty" (exit 0, no output). Undeclared: not checked.
	ConfigGetUnset string `yaml:"config_get_unset"`
	// BadDaemonEnv is where a bad class in the daemon's own env is refused: "refuse-sessions"
	// (the daemon starts, each session is refused) or "refuse-start" (the daemon exits, naming
	// it). The seed says neither. Undeclared: not checked.
	BadDaemonEnv string `yaml:"bad_daemon_env"`
	// MalformedConfig is what a session does while the config file does not parse: "refuse" or
	// "as-unset" (it resolves as if the key were unset). config --set over such a file is refused
	// and leaves it as it was either way (a promise). Undeclared: not checked.
	MalformedConfig string `yaml:"malformed_config"`
	// RefusesWhenIgnored: where the target reads the class and ignores it (background: ignore),
	// bad class values are still refused. Where it applies the class that is a promise.
	RefusesWhenIgnored bool `yaml:"refuses_when_ignored"`
	// ArgvControls: a harness argument that holds a control character (a newline, a tab) reaches
	// the harness whole. Every other argument arriving whole is a promise (the harness the profile
	// names is what starts); a launcher whose transport is line-based (bash's mapfile of jq's
	// lines) cannot carry a newline, and one that quotes with bash's printf %q for a host whose
	// shell is sh passes a tab on as $'...'.
	ArgvControls bool `yaml:"argv_controls"`
}

// The accepted values of the conventions that choose between ways.
var (
	badDaemonEnvWays    = []string{"refuse-sessions", "refuse-start"}
	malformedConfigWays = []string{"refuse", "as-unset"}
)

func (c Conventions) validate(m *Manifest, add func(string, ...any)) {
	for _, k := range c.RefusalsName {
		if !slices.Contains(mentionKinds, k) {
			add("conventions.refusals_name: %q is not known; accepted: %s", k, strings.Join(mentionKinds, ", "))
		}
	}
	if slices.Contains(c.RefusalsName, MentionSource) && c.RefusalSources["daemon"] == "" {
		add("conventions.refusal_sources.daemon: needed with refusals_name: source (a regexp for how a refusal names the daemon's env)")
	}
	for k, p := range c.RefusalSources {
		if k != "daemon" {
			add("conventions.refusal_sources.%s: unknown source; accepted: daemon", k)
		}
		if _, err := regexp.Compile(p); err != nil {
			add("conventions.refusal_sources.%s %q: %v", k, p, err)
		}
	}
	switch c.ConfigGetUnset {
	case "", "error", "empty":
	default:
		add("conventions.config_get_unset: %q is not known; accepted: error, empty", c.ConfigGetUnset)
	}
	if c.ConfigGetUnset != "" && m.Config == nil {
		add("conventions.config_get_unset: declared, but the target has no config commands")
	}
	if c.BadDaemonEnv != "" && !slices.Contains(badDaemonEnvWays, c.BadDaemonEnv) {
		add("conventions.bad_daemon_env: %q is not known; accepted: %s", c.BadDaemonEnv, strings.Join(badDaemonEnvWays, ", "))
	}
	if c.MalformedConfig != "" && !slices.Contains(malformedConfigWays, c.MalformedConfig) {
		add("conventions.malformed_config: %q is not known; accepted: %s", c.MalformedConfig, strings.Join(malformedConfigWays, ", "))
	}
	if c.MalformedConfig != "" && m.Config == nil {
		add("conventions.malformed_config: declared, but the target has no config commands")
	}
	if m.SpawnSpecRewrites && len(m.SpawnSpec) == 0 {
		add("spawn_spec_rewrites: declared, but the target has no spawn_spec command")
	}
}

// Names says whether refusals name this kind (a Mention* constant).
func (c Conventions) Names(kind string) bool { return slices.Contains(c.RefusalsName, kind) }

// LeftOutFilter is the label filter that leaves out the specs of leftOut (LeftOut's labels and
// reasons; "" when none is).
func LeftOutFilter(leftOut map[string]string) string {
	var labels []string
	for l := range leftOut {
		labels = append(labels, "!"+l)
	}
	sort.Strings(labels)
	return strings.Join(labels, " && ")
}
