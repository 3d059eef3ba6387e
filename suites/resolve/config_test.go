package resolve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/classproof/classproof/helpers/base/label"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
	"github.com/classproof/classproof/helpers/oracle"
	"github.com/classproof/classproof/helpers/suite"
)

// readJSON decodes the config file keeping numbers exact, so "other keys survive" means exactly.
func readJSON(path string) map[string]any {
	GinkgoHelper()
	b, err := suite.ReadLauncherFile(path)
	suite.Must(err)
	m := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	Expect(dec.Decode(&m)).To(Succeed(), "the config file is JSON:\n%s", b)
	return m
}

func at(m map[string]any, dotted string) (any, bool) {
	var cur any = m
	for _, k := range strings.Split(dotted, ".") {
		o, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = o[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// writeFile plants a config file as the launcher's user would find it (launcher.Instance.WriteFile).
func writeFile(l *launcher.Instance, path, content string) {
	GinkgoHelper()
	Expect(l.WriteFile(path, []byte(content))).To(Succeed())
}

var _ = Describe("resolve: the config key", Label(label.ResolveArea, label.ConfigArea, label.NeedsConfig, label.SeedConfig), func() {
	var (
		control oracle.Observation
		l       *launcher.Instance
		cfg     *manifest.Config
		file    string
	)
	BeforeEach(func() {
		if env.Driver.Manifest.Config == nil {
			Skip("target " + env.Driver.Manifest.Name + " declares no config commands")
		}
		cfg = env.Driver.Manifest.Config
		control = env.Control()
		l = env.Launch(launcher.LaunchOptions{})
		var err error
		file, err = l.ConfigFile()
		suite.Must(err)
	})

	It("round-trips the class through --set and --get, stored in the file under the camelCase key", func() {
		_, err := l.ConfigSet(cfg.Key, "normal")
		suite.Must(err)
		Expect(l.ConfigGet(cfg.Key)).To(Equal("normal"))
		m := readJSON(file)
		v, ok := at(m, cfg.FileKey)
		Expect(ok).To(BeTrue(), "%s has no %s: %v", file, cfg.FileKey, m)
		Expect(v).To(Equal("normal"))
		if cfg.Key != cfg.FileKey {
			_, snake := at(m, cfg.Key)
			Expect(snake).To(BeFalse(), "%s stores the CLI spelling %s too: %v", file, cfg.Key, m)
		}
	})

	It("applies a --set to the next session without a restart, and --unset returns to the default", Label(label.ReadsResolved), func() {
		expectResolved(l, control, nil, "background", fromDefault)
		_, err := l.ConfigSet(cfg.Key, "normal")
		suite.Must(err)
		expectResolved(l, control, nil, "normal", fromConfig)
		_, err = l.ConfigUnset(cfg.Key)
		suite.Must(err)
		expectUnset(l, cfg.Key, "--get after --unset")
		expectResolved(l, control, nil, "background", fromDefault)
	})

	// A launcher that keeps the parsed file while its timestamp is the one it read misses a --set
	// made within one tick of that timestamp (a second, on a file system whose times tick once a
	// second): the second set here is made to look so, its times put back to the first's.
	It("applies a --set made at once after a session to the next session, though the file's timestamp is the one of the --set before", Label(label.ReadsResolved), func() {
		_, err := l.ConfigSet(cfg.Key, "normal")
		suite.Must(err, "the first config --set")
		tick, err := l.FileTime(file)
		suite.Must(err, "reading the time of the config file the first --set wrote")
		expectResolved(l, control, nil, "normal", fromConfig)
		_, err = l.ConfigSet(cfg.Key, "background")
		suite.Must(err, "the second config --set")
		suite.Must(l.SetFileTime(file, tick), "putting the config file's time back to the first --set's")
		expectResolved(l, control, nil, "background", fromConfig)
	})

	It("takes every spelling of the key the target documents", Label(label.ConvKeySpellings), func() {
		for _, alt := range cfg.KeyAlt {
			_, err := l.ConfigSet(alt, "normal")
			suite.Must(err)
			Expect(l.ConfigGet(cfg.Key)).To(Equal("normal"), "set as %s, read as %s", alt, cfg.Key)
			_, err = l.ConfigUnset(alt)
			suite.Must(err)
			expectUnset(l, cfg.Key, "unset as "+alt)
		}
	})

	It("keeps other keys, known or unknown, through a set and an unset", func() {
		seed := map[string]any{
			"zeta": map[string]any{"deep": []any{1, 2.5, map[string]any{"x": "y"}}},
			"big":  json.Number("12345678901234567890"),
			"flag": true,
		}
		// The class key's parent holds a sibling the target does not know.
		parent, leaf := "", cfg.FileKey
		if i := strings.LastIndex(cfg.FileKey, "."); i >= 0 {
			parent, leaf = cfg.FileKey[:i], cfg.FileKey[i+1:]
		}
		sibling := map[string]any{"otherSetting": json.Number("7"), leaf: "background"}
		if parent == "" {
			seed[leaf] = "background"
		} else {
			seed[parent] = sibling
		}
		b, _ := json.MarshalIndent(seed, "", "  ")
		writeFile(l, file, string(b))
		want := readJSON(file)

		_, err := l.ConfigSet(cfg.Key, "normal")
		suite.Must(err)
		got := readJSON(file)
		v, _ := at(got, cfg.FileKey)
		Expect(v).To(Equal("normal"))
		setLeaf(got, cfg.FileKey, "background")
		Expect(got).To(Equal(want), "after --set, every other key is as it was")

		_, err = l.ConfigUnset(cfg.Key)
		suite.Must(err)
		got = readJSON(file)
		_, still := at(got, cfg.FileKey)
		Expect(still).To(BeFalse())
		setLeaf(got, cfg.FileKey, "background")
		Expect(got).To(Equal(want), "after --unset, every other key is as it was")
	})

	It("loses no update when 8 --set calls run at once", func() {
		// Rounds of 8: whether two read-change-write cycles overlap is up to the scheduler, and
		// one round on a loaded machine may happen to run them one after another. A lost update
		// in any round fails the spec; none is ever retried.
		const rounds = 4
		for round := 0; round < rounds; round++ {
			var wg sync.WaitGroup
			errs := make([]error, 8)
			others := map[string]string{}
			for i := 0; i < 8; i++ {
				key, value := cfg.Key, []string{"normal", "background"}[i%2]
				if cfg.OtherKey != "" && i < 4 {
					key = strings.ReplaceAll(cfg.OtherKey, "{n}", fmt.Sprint(round*8+i))
					value = fmt.Sprintf("value-%d-%d", round, i)
					others[key] = value
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = l.ConfigSet(key, value)
				}()
			}
			wg.Wait()
			for _, err := range errs {
				suite.Must(err)
			}
			m := readJSON(file)
			v, ok := at(m, cfg.FileKey)
			Expect(ok).To(BeTrue())
			Expect(v).To(BeElementOf("normal", "background"))
			for key, value := range others {
				Expect(l.ConfigGet(key)).To(Equal(value), "round %d of %d: the update of %s survived the others (file: %v)", round+1, rounds, key, m)
			}
		}
	})

	// overMalformed writes a malformed config file, then checks that a --set is refused and the
	// file is byte for byte as it was; it returns the file's bytes and what the refusal said.
	overMalformed := func() (bad []byte, setSaid string) {
		GinkgoHelper()
		bad = []byte("{\"session\": {\"cpuClass\": \"normal\",,}\n")
		writeFile(l, file, string(bad))
		out, err := l.ConfigSet(cfg.Key, "background")
		Expect(err).To(HaveOccurred(), "a --set over a malformed file")
		Expect(strings.TrimSpace(out)).NotTo(BeEmpty(), "the --set refusal says why")
		Expect(suite.ReadLauncherFile(file)).To(Equal(bad), "the file is byte for byte as it was")
		return bad, out
	}

	// sessionOverMalformed asks for a session while the file is malformed and checks the session
	// left it as it was; what a session does then is the target's choice (malformed_config).
	sessionOverMalformed := func(bad []byte) (*launcher.Session, error) {
		GinkgoHelper()
		s, err := l.StartSession(launcher.Direct, nil)
		Expect(suite.ReadLauncherFile(file)).To(Equal(bad), "a session leaves the malformed file byte for byte as it was")
		return s, err
	}

	It("leaves a malformed file as it was, and refuses a --set while it is", func() {
		overMalformed()
	})

	It("refuses sessions while the config file is malformed, and leaves it as it was", Label(label.ConvMalformedConfigRefuse), func() {
		bad, _ := overMalformed()
		_, err := sessionOverMalformed(bad)
		suite.ExpectRefused(l, "a direct session while the config file is malformed", err)
	})

	It("starts sessions as if the key were unset while the config file is malformed, and leaves it as it was",
		Label(label.ConvMalformedConfigAsUnset, label.ReadsResolved), func() {
			bad, _ := overMalformed()
			expectResolved(l, control, nil, "background", fromDefault)
			Expect(suite.ReadLauncherFile(file)).To(Equal(bad), "a session leaves the malformed file byte for byte as it was")
		})

	It("leaves a malformed file as it was, and says which file", suite.RefusalNames(manifest.MentionFile), func() {
		bad, setSaid := overMalformed()
		Expect(setSaid).To(ContainSubstring(file))
		if l.Conventions().MalformedConfig == "refuse" {
			_, err := sessionOverMalformed(bad)
			Expect(err).To(HaveOccurred(), "a session while the config is malformed is refused (conventions.malformed_config: refuse)")
			Expect(err.Error()).To(ContainSubstring(file))
		}
	})

	// invalid sets the key to an invalid value and checks it is refused with the file unchanged.
	invalid := func() string {
		GinkgoHelper()
		_, err := l.ConfigSet(cfg.Key, "background")
		suite.Must(err)
		before, _ := suite.ReadLauncherFile(file)
		out, err := l.ConfigSet(cfg.Key, "turbo")
		Expect(err).To(HaveOccurred(), "config --set %s=turbo", cfg.Key)
		Expect(strings.TrimSpace(out)).NotTo(BeEmpty(), "the refusal says why")
		Expect(suite.ReadLauncherFile(file)).To(Equal(before))
		return out
	}

	It("refuses an invalid value and leaves the file as it was", func() { invalid() })

	It("refuses a near miss of a class (normalize, background-please, xnormal) and leaves the file as it was", func() {
		_, err := l.ConfigSet(cfg.Key, "background")
		suite.Must(err)
		before, _ := suite.ReadLauncherFile(file)
		for _, v := range []string{"normalize", "background-please", "xnormal"} {
			out, err := l.ConfigSet(cfg.Key, v)
			Expect(err).To(HaveOccurred(), "config --set %s=%s: a value that only looks like a class", cfg.Key, v)
			Expect(strings.TrimSpace(out)).NotTo(BeEmpty(), "the refusal of %s says why", v)
			Expect(suite.ReadLauncherFile(file)).To(Equal(before), "after config --set %s=%s", cfg.Key, v)
		}
	})

	It("refuses an invalid value, naming it and the accepted values, and leaves the file as it was",
		suite.RefusalNames(manifest.MentionValue, manifest.MentionAccepted), func() {
			out := invalid()
			for _, w := range []string{"turbo", "normal", "background"} {
				Expect(out).To(ContainSubstring(w))
			}
		})

	// readOnlySet makes the config folder read-only, then checks a --set fails, loses nothing and
	// leaves the old value in force; it returns the folder and what the refusal said.
	readOnlySet := func() (dir, said string) {
		GinkgoHelper()
		_, err := l.ConfigSet(cfg.Key, "background")
		suite.Must(err)
		before, _ := suite.ReadLauncherFile(file)
		dir = filepath.Dir(file)
		undo, err := suite.ReadOnlyForLauncher(dir)
		if err != nil {
			Skip("cannot make the config directory read-only for the launcher: " + err.Error())
		}
		DeferCleanup(undo)
		Expect(suite.LauncherCannotWrite(dir)).To(Succeed())
		out, err := l.ConfigSet(cfg.Key, "normal")
		Expect(err).To(HaveOccurred(), "a --set into a read-only directory")
		Expect(strings.TrimSpace(out)).NotTo(BeEmpty(), "the refusal says why")
		Expect(suite.ReadLauncherFile(file)).To(Equal(before))
		Expect(l.ConfigGet(cfg.Key)).To(Equal("background"))
		return dir, out
	}

	It("fails when the config directory is read-only, and loses nothing", func() { readOnlySet() })

	It("fails when writing the file itself fails, and leaves it byte for byte as it was", func() {
		_, err := l.ConfigSet(cfg.Key, "background")
		suite.Must(err)
		// A file larger than the limit below: rewriting it must fail partway (EFBIG, or SIGXFSZ
		// for a writer that does not ignore it), as on a full disk.
		m := readJSON(file)
		m["classproofPadding"] = strings.Repeat("x", 3000)
		b, _ := json.MarshalIndent(m, "", "  ")
		writeFile(l, file, string(b))
		before, _ := suite.ReadLauncherFile(file)
		out, err := l.ConfigSetLimited(cfg.Key, "normal", 2048)
		Expect(err).To(HaveOccurred(), "config --set under a 2048-byte file size limit reported success; it said %q", out)
		Expect(suite.ReadLauncherFile(file)).To(Equal(before), "the file is byte for byte as it was")
		Expect(l.ConfigGet(cfg.Key)).To(Equal("background"))
	})

	It("says so when the config directory is read-only, and loses nothing", suite.RefusalNames(manifest.MentionFile), func() {
		dir, said := readOnlySet()
		Expect(said).To(ContainSubstring(dir))
	})
})

func setLeaf(m map[string]any, dotted, v string) {
	keys := strings.Split(dotted, ".")
	cur := m
	for _, k := range keys[:len(keys)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[keys[len(keys)-1]] = v
}

// expectUnset checks how config --get answers for an unset key, as the target declares it
// (conventions.config_get_unset); undeclared, it is not checked.
func expectUnset(l *launcher.Instance, key, doing string) {
	GinkgoHelper()
	out, err := l.ConfigGet(key)
	switch l.Conventions().ConfigGetUnset {
	case "error":
		Expect(err).To(HaveOccurred(), "%s: config --get on an unset key fails (conventions.config_get_unset: error); it printed %q", doing, out)
	case "empty":
		Expect(err).NotTo(HaveOccurred(), "%s: config --get on an unset key exits 0 (conventions.config_get_unset: empty)", doing)
		Expect(out).To(BeEmpty(), "%s: config --get on an unset key prints nothing (conventions.config_get_unset: empty)", doing)
	}
}
