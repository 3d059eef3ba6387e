// Package label is the kit's one label vocabulary: every Ginkgo label a spec carries, spelled
// here and nowhere else. A lane selects with them (helpers/lane), a target's manifest decides
// which it lacks (helpers/manifest), the suites attach them (helpers/suite and suites/).
//
// It is a bottom layer: it imports nothing.
package label

// Platform labels: each platform-bound spec carries exactly one, and a lane of the same name
// selects it.
const (
	Darwin      = "darwin"
	LinuxIdle   = "linux-idle"
	LinuxIgnore = "linux-ignore"
)

// Area labels: what part of the promise a spec is about, for selecting a part.
const (
	DirectArea  = "direct"
	HostedArea  = "hosted"
	InheritArea = "inherit"
	OptOutArea  = "optout"
	ResolveArea = "resolve"
	EnvRefArea  = "envref"
	ConfigArea  = "config"
	CompatArea  = "compat"
	IsolateArea = "isolation"
	LoadArea    = "concurrency"
)

// Capability labels: a spec that needs an optional part of a target's contract carries one; a
// target that lacks it has the spec left out before the run, with the reason.
const (
	NeedsHosted    = "needs-hosted"     // session.hosted
	NeedsConfig    = "needs-config"     // config: set, get, unset, file
	NeedsExplain   = "needs-explain"    // explain
	NeedsEnvRef    = "needs-env-ref"    // env_ref
	NeedsSpawnSpec = "needs-spawn-spec" // host and spawn_spec
	// ReadsResolved marks a spec that checks which class a session resolved to. Where the target
	// applies the class, the harness's class shows it; where it ignores the class (the seed on
	// Linux), only explain can: a target that ignores it there and declares no explain has these
	// specs left out in that lane, and every spec that observes still runs.
	ReadsResolved = "reads-resolved"
	// NeedsRawSpawnSpec marks a spec that hands the agent host bytes it must refuse (malformed
	// JSON, data after the object, a spawn spec cut short or over the size limit). They must reach
	// the host as they are: a target whose spawn_spec command rewrites them (spawn_spec_rewrites)
	// has these left out, since its adapter, not its host, would be judged.
	NeedsRawSpawnSpec = "needs-raw-spawn-spec"
	// RefusesClass marks a spec that checks a bad class value is refused. A promise where the
	// target applies the class; where it reads the class and ignores it (the seed on Linux),
	// whether it still refuses bad values is its own choice (conventions.refuses_when_ignored),
	// and undeclared these specs are left out in that lane.
	RefusesClass = "refuses-class"
)

// Convention labels: a spec that checks a target's own choice, run only where its manifest
// declares it. Every label with ConventionPrefix is a convention; every spec without one checks
// a promise of the seed.
const (
	ConventionPrefix = "conv-"
	ConvFoldCase     = "conv-fold-case"     // conventions.fold_case
	ConvEmptyUnset   = "conv-empty-unset"   // conventions.empty_is_unset
	ConvKeySpellings = "conv-key-spellings" // config.key_alt
	// Where a bad class in the daemon's own env is refused (conventions.bad_daemon_env).
	ConvBadDaemonEnvSessions = "conv-bad-daemon-env-sessions" // refuse-sessions: each session
	ConvBadDaemonEnvStart    = "conv-bad-daemon-env-start"    // refuse-start: the daemon itself
	// What a session does while the config file does not parse (conventions.malformed_config).
	ConvMalformedConfigRefuse  = "conv-malformed-config-refuse"   // refuse: it is refused
	ConvMalformedConfigAsUnset = "conv-malformed-config-as-unset" // as-unset: as if the key were unset
	// ConvArgvControl: a harness argument that holds a newline or a tab arrives whole (conventions.argv_controls).
	ConvArgvControl = "conv-argv-control"
	// ConvNamesPrefix + a mention kind: what a refusal names (conventions.refusals_name).
	ConvNamesPrefix = "conv-names-"
)

// Seed labels: a spec that checks a promise carries the key of the seed sentence it checks
// (Seed, seed.go), so the catalogue (docs/specs.md, ci/specsdoc) says which sentence each spec
// proves and a new spec must say it. A spec with a convention label is a convention whatever seed
// label it inherits.
const (
	SeedPrefix       = "seed-"
	SeedBackground   = "seed-background"    // each session's harness starts at background
	SeedHarness      = "seed-harness"       // the harness the profile names starts
	SeedForkExec     = "seed-fork-exec"     // the class is set between fork and exec, direct and hosted
	SeedInherit      = "seed-inherit"       // the harness's tools inherit it
	SeedNoRenice     = "seed-no-renice"     // no running process is reniced
	SeedNoRaise      = "seed-no-raise"      // every session starts, and stays, at background
	SeedFirstSource  = "seed-first-source"  // the resolve order
	SeedOptOut       = "seed-opt-out"       // a profile opts out with normal
	SeedEnvRef       = "seed-env-ref"       // ${env:...} references
	SeedConfig       = "seed-config"        // config --set session.cpu_class
	SeedCompat       = "seed-compat"        // an older daemon's spawn spec
	SeedLinuxIgnores = "seed-linux-ignores" // Linux reads the class and ignores it
)

// Names is the label of a spec that checks a refusal names kind (a manifest.Mention* kind).
func Names(kind string) string { return ConvNamesPrefix + kind }
