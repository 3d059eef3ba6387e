package compat_test

import (
	"errors"
	"io/fs"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/fixtures/spawnspecs"
	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/base/proctable"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

func spec(name string) []byte {
	GinkgoHelper()
	b, err := fs.ReadFile(spawnspecs.FS, name)
	suite.Must(err)
	return b
}

// spawn sends the named spec, which must start a harness. Through a translator, each spec sent
// must mean, read back by the kit, what the kit wrote (launcher.SendSpawnSpec).
func spawn(l *launcher.Instance, name string) (*launcher.Session, error) {
	GinkgoHelper()
	return l.SpawnFromSpawnSpec(name, spec(name))
}

// rendered is the named spec for the host to refuse, rendered, and how it is sent.
func rendered(l *launcher.Instance, name string) (send func([]byte) (string, error), bad []byte, report string) {
	GinkgoHelper()
	bad, report = l.RenderSpawnSpec(spec(name))
	return l.SendSpawnSpec, bad, report
}

// Spawn specs handed straight to the agent host, as daemons of each generation write them.
var _ = Describe("compat: spawn specs from every daemon generation", Label(label.CompatArea, label.HostedArea, label.NeedsSpawnSpec, label.SeedCompat), func() {
	var (
		control oracle.Observation
		l       *launcher.Instance
	)
	BeforeEach(func() {
		if len(env.Driver.Manifest.SpawnSpec) == 0 || env.Driver.Manifest.Host == nil {
			Skip("target " + env.Driver.Manifest.Name + " declares no agent host or no spawn_spec command: nothing to hand a raw spec to")
		}
		control = env.Control()
		l = env.Launch(launcher.LaunchOptions{})
	})

	It("starts an older daemon's spec (no cpu_class) at the agent host's own class, harness and tools", func() {
		s, err := spawn(l, "older-daemon-no-cpu-class.json")
		suite.Must(err)
		host := suite.Observe(oracle.Subject{Role: "agent host", Pid: l.HostPid})[0]
		Expect(host).To(suite.HaveControlClass(control), "the host itself runs at the class the kit gave it")
		Expect(suite.Observe(s.Subjects()...)).To(suite.HaveControlClass(host), "no class step: as before cpu_class existed")
	})

	It("starts a spec with cpu_class background at background class", Label(label.SeedForkExec), func() {
		s, err := spawn(l, "daemon-cpu-class-background.json")
		suite.Must(err)
		Expect(suite.Observe(s.Subjects()...)).To(suite.BeAtBackground(env.Platform.Meaning, control))
	})

	It("starts a spec with cpu_class normal at the control's class", Label(label.SeedForkExec), func() {
		s, err := spawn(l, "daemon-cpu-class-normal.json")
		suite.Must(err)
		Expect(suite.Observe(s.Subjects()...)).To(suite.HaveControlClass(control))
	})

	It("ignores the fields a newer daemon adds and applies its cpu_class", func() {
		s, err := spawn(l, "newer-daemon-extra-fields.json")
		suite.Must(err)
		Expect(suite.Observe(s.Subjects()...)).To(suite.BeAtBackground(env.Platform.Meaning, control))
	})

	// expectRefusedAndServing checks a bad spec was refused, said why, started nothing, and that
	// the host is still there and starts the next good spec.
	expectRefusedAndServing := func(send func([]byte) (string, error), bad []byte, report string, mention ...string) {
		GinkgoHelper()
		out, err := send(bad)
		var ce *launcher.CommandError
		Expect(errors.As(err, &ce)).To(BeTrue(), "the host refuses the spec; the sender was told: %q (err %v)", out, err)
		Expect(ce.Output).NotTo(BeEmpty(), "the refusal says why")
		for _, m := range mention {
			Expect(ce.Output).To(ContainSubstring(m))
		}
		AddReportEntry("refusal", ce.Output, ReportEntryVisibilityFailureOrVerbose)
		Expect(proctable.Alive(l.HostPid)).To(BeTrue(), "the agent host pid %d is still running after the bad spec", l.HostPid)
		suite.ExpectNothingStarted(l, report, "a refused spec")
		s, err := spawn(l, "daemon-cpu-class-background.json")
		Expect(err).NotTo(HaveOccurred(), "the host serves the next good spec")
		Expect(suite.Observe(s.Subjects()...)).To(suite.BeAtBackground(env.Platform.Meaning, control))
	}

	It("refuses an unknown cpu_class and keeps serving", Label(label.RefusesClass), func() {
		expectRefusedAndServing(rendered(l, "bad-unknown-cpu-class.json"))
	})

	It("refuses an unknown cpu_class, naming it, and keeps serving", suite.RefusalNames(manifest.MentionValue), Label(label.RefusesClass), func() {
		send, bad, report := rendered(l, "bad-unknown-cpu-class.json")
		expectRefusedAndServing(send, bad, report, "turbo")
	})

	// Bytes a host must refuse (kind, a launcher.Bad* kind) are, with a translator
	// (spawn_spec_translate), built from a translated good spec, so that only the defect under
	// test is wrong, and handed to the host as they are; without one, the fixture.
	refuseBytes := func(kind, fixture string) {
		GinkgoHelper()
		var fx []byte
		if fixture != "" {
			fx = spec(fixture)
		}
		bad, report, err := l.BadSpawnSpec(kind, spec("daemon-cpu-class-background.json"), fx)
		suite.Must(err)
		expectRefusedAndServing(l.SendBytes, bad, report)
	}

	DescribeTable("refuses a bad spec with a clear error to the sender and keeps serving",
		func(name, kind string) {
			if kind != "" {
				refuseBytes(kind, name)
				return
			}
			expectRefusedAndServing(rendered(l, name))
		},
		Entry("malformed JSON", Label(label.NeedsRawSpawnSpec), "bad-malformed-json.json", launcher.BadMalformed),
		Entry("data after the object, on the next line", Label(label.NeedsRawSpawnSpec), "bad-data-after-object.json", launcher.BadAfterObject),
		Entry("no argv", "bad-missing-argv.json", ""),
		Entry("an empty argv", "bad-empty-argv.json", ""),
		Entry("a connection that closes halfway through the spec", Label(label.NeedsRawSpawnSpec), "bad-closed-halfway.json", launcher.BadCutShort),
	)

	It("refuses a spec over 1 MiB and keeps serving", Label(label.NeedsRawSpawnSpec), func() {
		refuseBytes(launcher.BadOversize, "")
	})
})
