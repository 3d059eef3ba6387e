package manifest

import (
	"slices"
	"strings"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/oracle"
)

// Feature is one optional capability or declared convention of a manifest, everything the kit
// knows of it in one row (as Kubernetes' e2e framework registers its features): the label its
// specs carry, the manifest key that declares it, whether a manifest has it, why its specs are
// left out when it does not, and the doctor's probe of it. The run's label filter, the reasons
// it prints and the doctor read this table; a new capability or convention is a new row.
type Feature struct {
	Label string // the label of the specs that need it (helpers/base/label)
	Key   string // the manifest key that declares it, as docs/manifest.md writes it
	// Has says whether m has it in a lane where background means meaning: a spec labelled Label
	// runs only where every row of that label says so.
	Has func(m *Manifest, meaning oracle.Meaning) bool
	// Reason is why its specs are left out where it is missing: {target} is the manifest's name
	// and {key} is Key. Of two rows of one label that are both missing, the first one's is given.
	Reason string
	Probe  Probe // what the doctor tries for it; "" for nothing
}

// Probe names one of the doctor's tries (helpers/commands/doctor, which holds what each does);
// the doctor runs each in the order of its first row here, once.
type Probe string

// The doctor's probes.
const (
	ProbeHosted    Probe = "hosted"     // a hosted session starts, at the class the lane reads
	ProbeExplain   Probe = "explain"    // explain prints a class and its source
	ProbeConfig    Probe = "config"     // the config round trip, --get on an unset key, a failed write
	ProbeSpawnSpec Probe = "spawn-spec" // a spawn_spec that rewrites each spec is taken on trust
	ProbeRefusals  Probe = "refusals"   // what refusals name: profile, key, value, accepted
	ProbeFoldCase  Probe = "fold-case"  // "  NoRmAl " is taken
	ProbeEmpty     Probe = "empty"      // an empty value, and an empty reference result, count as unset
)

// Features is the table, in the doctor's order: a copy, so that no caller changes it for another.
func Features() []Feature { return slices.Clone(features) }

// LeftOut is, for each label whose specs this target cannot run in a lane where background means
// meaning, why: a capability it lacks or a convention it does not declare.
func (m *Manifest) LeftOut(meaning oracle.Meaning) map[string]string {
	out := map[string]string{}
	for _, f := range features {
		if _, said := out[f.Label]; !said && !f.Has(m, meaning) {
			out[f.Label] = strings.NewReplacer("{target}", m.Name, "{key}", f.Key).Replace(f.Reason)
		}
	}
	return out
}

// applied says whether background is applied where it means meaning: there the class a session
// resolved to shows in its processes, and a bad value is refused by promise.
func applied(meaning oracle.Meaning) bool { return meaning != oracle.Ignored }

var features = append([]Feature{
	{Label: label.NeedsHosted, Key: "session.hosted", Probe: ProbeHosted,
		Has:    func(m *Manifest, _ oracle.Meaning) bool { return len(m.Session.Hosted) > 0 },
		Reason: "target {target} declares no hosted session ({key})"},
	{Label: label.NeedsExplain, Key: "explain", Probe: ProbeExplain,
		Has:    func(m *Manifest, _ oracle.Meaning) bool { return m.Explain != nil },
		Reason: "target {target} declares no explain command ({key})"},
	{Label: label.ReadsResolved, Key: "explain",
		Has: func(m *Manifest, meaning oracle.Meaning) bool { return m.Explain != nil || applied(meaning) },
		Reason: "target {target} ignores the class here and declares no explain command ({key}): which class a session " +
			"resolved to cannot be read, only that every process keeps the control's class"},
	{Label: label.NeedsConfig, Key: "config", Probe: ProbeConfig,
		Has:    func(m *Manifest, _ oracle.Meaning) bool { return m.Config != nil },
		Reason: "target {target} declares no config commands ({key})"},
	{Label: label.NeedsEnvRef, Key: "env_ref",
		Has:    func(m *Manifest, _ oracle.Meaning) bool { return m.EnvRef != nil },
		Reason: "target {target} declares no env references ({key})"},
	// spawn_spec_rewrites takes away two labels; its rows come before the host's, whose reason
	// (no host) would say less.
	{Label: label.NeedsRawSpawnSpec, Key: "spawn_spec_rewrites", Probe: ProbeSpawnSpec,
		Has: notRewriting,
		Reason: "target {target}'s spawn_spec command rewrites each spawn spec ({key}): bytes the host must refuse would be " +
			"judged by its adapter, not its host"},
	{Label: label.NeedsSpawnSpec, Key: "spawn_spec_rewrites", Probe: ProbeSpawnSpec,
		Has: notRewriting,
		Reason: "target {target}'s spawn_spec command rewrites each spawn spec ({key}): what its host is sent is the " +
			"adapter's, which the kit cannot read, so no spawn spec judges the host; declare spawn_spec_translate instead, " +
			"whose output the kit judges"},
	{Label: label.NeedsSpawnSpec, Key: "host, spawn_spec",
		Has:    func(m *Manifest, _ oracle.Meaning) bool { return m.Host != nil && len(m.SpawnSpec) > 0 },
		Reason: "target {target} declares no agent host with a raw spawn-spec command ({key})"},
}, conventions()...)

func notRewriting(m *Manifest, _ oracle.Meaning) bool { return !m.SpawnSpecRewrites }

// conventions are the rows of the declared conventions: what refusals name first (the doctor
// tries those before the rest), then each other.
func conventions() []Feature {
	var rows []Feature
	for _, k := range mentionKinds {
		probe := ProbeRefusals
		switch k {
		case MentionSource:
			probe = ""
		case MentionFile:
			probe = ProbeConfig // a config write the launcher cannot make
		}
		rows = append(rows, Feature{Label: label.Names(k), Key: "conventions.refusals_name: " + k, Probe: probe,
			Has:    func(m *Manifest, _ oracle.Meaning) bool { return m.Conventions.Names(k) },
			Reason: "convention not declared: a refusal names " + mentionMeaning[k] + " ({key})"})
	}
	return append(rows,
		Feature{Label: label.ConvFoldCase, Key: "conventions.fold_case", Probe: ProbeFoldCase,
			Has:    func(m *Manifest, _ oracle.Meaning) bool { return m.Conventions.FoldCase },
			Reason: "convention not declared: values in any case with surrounding spaces ({key})"},
		Feature{Label: label.ConvEmptyUnset, Key: "conventions.empty_is_unset", Probe: ProbeEmpty,
			Has:    func(m *Manifest, _ oracle.Meaning) bool { return m.Conventions.EmptyIsUnset },
			Reason: "convention not declared: an empty value counts as unset ({key})"},
		Feature{Label: label.ConvKeySpellings, Key: "config.key_alt",
			Has:    func(m *Manifest, _ oracle.Meaning) bool { return m.Config != nil && len(m.Config.KeyAlt) > 0 },
			Reason: "convention not declared: other spellings of the config key ({key})"},
		Feature{Label: label.RefusesClass, Key: "conventions.refuses_when_ignored",
			Has: func(m *Manifest, meaning oracle.Meaning) bool {
				return applied(meaning) || m.Conventions.RefusesWhenIgnored
			},
			Reason: "convention not declared: bad class values refused where the class is ignored ({key}); the seed's Linux " +
				"reads the class and ignores it"},
		Feature{Label: label.ConvArgvControl, Key: "conventions.argv_controls",
			Has:    func(m *Manifest, _ oracle.Meaning) bool { return m.Conventions.ArgvControls },
			Reason: "convention not declared: a harness argument that holds a newline or a tab arrives whole ({key})"},
		way(label.ConvBadDaemonEnvSessions, "bad_daemon_env", "refuse-sessions", func(c Conventions) string { return c.BadDaemonEnv },
			"a bad class in the daemon's env refuses each session"),
		way(label.ConvBadDaemonEnvStart, "bad_daemon_env", "refuse-start", func(c Conventions) string { return c.BadDaemonEnv },
			"a bad class in the daemon's env stops the daemon from starting"),
		way(label.ConvMalformedConfigRefuse, "malformed_config", "refuse", func(c Conventions) string { return c.MalformedConfig },
			"sessions refused while the config file does not parse"),
		way(label.ConvMalformedConfigAsUnset, "malformed_config", "as-unset", func(c Conventions) string { return c.MalformedConfig },
			"sessions resolve as if the key were unset while the config file does not parse"),
	)
}

// way is the row of one way of a convention that chooses between ways (key: value).
func way(lbl, key, value string, chosen func(Conventions) string, what string) Feature {
	return Feature{Label: lbl, Key: "conventions." + key + ": " + value,
		Has:    func(m *Manifest, _ oracle.Meaning) bool { return chosen(m.Conventions) == value },
		Reason: "convention not declared: " + what + " ({key})"}
}
