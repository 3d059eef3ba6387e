package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/classproof/classproof/helpers/lane"
	"github.com/classproof/classproof/helpers/manifest"
)

// target is one manifest of one launcher: one run.
type target struct {
	Launcher string // the launcher's folder name
	Repo     string // its folder: the manifest's {repo}
	Manifest string // the manifest's path
	Lane     string // the lane its background means on this OS; "" where the kit must say (it does not load)
}

// name is how every line names the run: launcher, lane, manifest.
func (t target) name() string {
	l := t.Lane
	if l == "" {
		l = "lane unknown"
	}
	return fmt.Sprintf("%s %s (%s)", t.Launcher, l, filepath.Base(t.Manifest))
}

// discover finds every manifest: a *.yaml or *.yml file in a launcher's folder (one level below
// dir) that has a class_env key, as every manifest must (launcher.Validate). Other files are not
// manifests and are passed over; a YAML file that does not parse is run, so the kit says what is
// wrong with it rather than it being passed over. A manifest whose background on this OS is
// unsupported has no lane here and is noted.
func discover(dir string) (targets []target, notes []string, err error) {
	launchers, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range launchers {
		repo := filepath.Join(dir, l.Name())
		if fi, err := os.Stat(repo); err != nil || !fi.IsDir() || strings.HasPrefix(l.Name(), ".") {
			continue // a file, or a hidden folder; a link to a launcher's folder is followed
		}
		files, err := os.ReadDir(repo)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range files {
			ext := filepath.Ext(f.Name())
			if f.IsDir() || (ext != ".yaml" && ext != ".yml") {
				continue
			}
			path := filepath.Join(repo, f.Name())
			t, note, err := manifestAt(path)
			if err != nil {
				return nil, nil, err
			}
			if note != "" {
				notes = append(notes, note)
				continue
			}
			t.Launcher, t.Repo = l.Name(), repo
			targets = append(targets, t)
		}
	}
	return targets, notes, nil
}

// manifestAt reads one YAML file: a target, or a note saying why it is not run.
func manifestAt(path string) (target, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return target{}, "", err
	}
	var keys map[string]any
	if yaml.Unmarshal(b, &keys) == nil {
		if _, ok := keys["class_env"]; !ok {
			return target{}, fmt.Sprintf("%s: not a manifest (no class_env), passed over", path), nil
		}
	}
	t := target{Manifest: path}
	m, err := manifest.Parse(path, b)
	if err != nil {
		return t, "", nil // the kit's run refuses it, in its own words
	}
	if m.Background[runtime.GOOS] == manifest.Unsupported {
		return target{}, fmt.Sprintf("%s: background.%s is %s: no lane here, not run", path, runtime.GOOS, manifest.Unsupported), nil
	}
	if meaning, err := m.Meaning(runtime.GOOS); err == nil {
		if p, err := lane.Current(meaning); err == nil {
			t.Lane = p.Label
		}
	}
	return t, "", nil
}
