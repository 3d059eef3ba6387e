package launcher

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/classproof/classproof/helpers/base/contract"
	"github.com/classproof/classproof/helpers/base/files"
)

// Profile is what the kit hands a launcher's session command as {profile}: a JSON file with the
// profile's name, env and harness command. A launcher with another profile format converts it in
// a thin adapter.
type Profile struct {
	Name    string            `json:"name"`
	Env     map[string]string `json:"env"`
	Command []string          `json:"command"`
	Cwd     string            `json:"cwd"`
}

// writeProfile writes the profile file for the n-th session and returns its path and name: the
// given name, or classproof-N, a name of its own.
func (l *Instance) writeProfile(name string, profileEnv map[string]string, harnessArgs ...string) (path, _, report string, err error) {
	n := l.n.Add(1)
	report = filepath.Join(l.Dir, fmt.Sprintf("report-%d.json", n))
	path = filepath.Join(l.Dir, fmt.Sprintf("profile-%d.json", n))
	if name == "" {
		name = fmt.Sprintf("classproof-%d", n)
	} else {
		// A reused profile is one file too, rewritten: a launcher may key what it keeps by
		// the path it is handed as well as by the name inside.
		path = filepath.Join(l.Dir, "profile-"+name+".json")
	}
	p := Profile{Name: name, Env: profileEnv, Cwd: l.Dir,
		Command: []string{l.d.Harness, "--report", report}}
	if ledger := contract.Current().Ledger; ledger != "" {
		p.Command = append(p.Command, "--ledger", ledger)
	}
	if token := l.set.Token(); token != "" {
		p.Command = append(p.Command, "--run", token)
	}
	p.Command = append(p.Command, harnessArgs...)
	l.hand(report, p.Command...)
	if p.Env == nil {
		p.Env = map[string]string{}
	}
	b, _ := json.MarshalIndent(p, "", "  ")
	return path, p.Name, report, l.WriteFile(path, b)
}

// WriteFile writes a file the launcher's processes read, and may rewrite (a profile, a spawn
// spec, a config file a spec plants), below this instance's folder, making the folders on the way:
// all of it the launcher's user's. That folder is theirs: nothing in it is followed (a symlink
// planted for a root kit to write through), see files.WriteBeneath.
func (l *Instance) WriteFile(path string, data []byte) error {
	rel, err := filepath.Rel(l.Dir, path)
	if err != nil {
		return err
	}
	id := l.d.RunsAs
	if !files.Within(path, l.Dir) { // a config file a manifest put elsewhere
		if id.Other() {
			return fmt.Errorf("target manifest %s: %s is outside the launcher's folder %s: a root kit writes a file for a launcher that runs as uid %d only below that folder; put it under {dir} or {home}",
				l.d.Manifest.Source, path, l.Dir, id.Uid)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		return files.WriteFile(path, data, 0o600)
	}
	uid, gid := -1, -1
	if id.Other() {
		uid, gid = id.Uid, id.Gid
	}
	return files.WriteBeneath(l.Dir, rel, data, uid, gid)
}
