package doctor

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/readonly"
	"github.com/classproof/classproof/helpers/launcher"
	"github.com/classproof/classproof/helpers/manifest"
)

// maxConfigFile bounds what the doctor reads of the launcher's config file (a claim).
const maxConfigFile = 1 << 20

// probeConfig tries the config commands where they are declared: a round trip, --get on an
// unset key (a fragment saying what it did), and a write that cannot be made.
func probeConfig(r *Report, m *manifest.Manifest, _ *launcher.Driver, l *launcher.Instance, has bool) {
	if !has {
		r.check(false, "config commands", "not declared: the config specs and config rows are left out")
		return
	}
	c := m.Config
	_, err := l.ConfigSet(c.Key, "normal")
	got, gerr := l.ConfigGet(c.Key)
	r.check(err == nil && gerr == nil && got == "normal", "config --set then --get round-trips the class", fmt.Sprintf("--get said %q %s %s", got, errText(err), errText(gerr)))
	_, err = l.ConfigUnset(c.Key)
	r.check(err == nil, "config --unset", errText(err))
	out, gerr := l.ConfigGet(c.Key)
	switch {
	case gerr != nil:
		r.check(true, "config --get on an unset key fails", "")
		r.fragment = append(r.fragment, "config_get_unset: error")
	case out == "":
		r.check(true, "config --get on an unset key prints nothing and exits 0", "")
		r.fragment = append(r.fragment, "config_get_unset: empty")
	default:
		r.check(false, "config --get on an unset key fails or prints nothing", fmt.Sprintf("it printed %q", out))
	}
	examineFailedWrite(r, m, l)
}

// examineFailedWrite tries what the run judges of a config write that cannot be made: with the
// config folder read-only for the launcher's user, config --set fails, says why, leaves the file
// byte for byte as it was and the old value in force (a promise wherever config is declared),
// and, where refusals_name declares file, names the folder. It leaves the key unset.
func examineFailedWrite(r *Report, m *manifest.Manifest, l *launcher.Instance) {
	const what = "config --set fails when the config folder is read-only, and loses nothing"
	key := m.Config.Key
	defer func() { _, _ = l.ConfigUnset(key) }() // the probes after this one start from an unset key
	file, before, undo, err := readOnlyConfig(l, key)
	if err != nil {
		r.check(false, what, "not tried: "+err.Error())
		return
	}
	dir := filepath.Dir(file)
	out, serr := l.ConfigSet(key, "normal")
	after, aerr := identity.Launcher().ReadClaim(file, maxConfigFile)
	if uerr := undo(); uerr != nil {
		r.check(false, "the config folder made writable again", uerr.Error())
	}
	got, gerr := l.ConfigGet(key)
	var why []string
	if serr == nil {
		why = append(why, "--set normal reported success")
	}
	if strings.TrimSpace(out) == "" {
		why = append(why, "it said nothing")
	}
	if aerr != nil || !bytes.Equal(before, after) {
		why = append(why, fmt.Sprintf("the file changed (%s)", errText(aerr)))
	}
	if gerr != nil || got != "background" {
		why = append(why, fmt.Sprintf("--get then said %q, not background %s", got, errText(gerr)))
	}
	detail := strings.Join(why, "; ")
	if said := strings.TrimSpace(out); said != "" {
		detail = strings.TrimPrefix(detail+"\nit said "+said, "\n")
	}
	r.check(len(why) == 0, what, detail)
	names := strings.Contains(out, dir)
	detail = ""
	if !names {
		detail = "not in what it said" + declared(slices.Contains(m.Conventions.RefusalsName, manifest.MentionFile), "refusals_name: [file]")
	}
	r.check(names, "the failed write names the config folder ("+dir+")", detail)
}

// readOnlyConfig sets the key to background, reads the config file, and makes its folder
// read-only for the launcher's user (checked by a write tried as that user): the folder, the
// file, what it held then, and how to undo it.
func readOnlyConfig(l *launcher.Instance, key string) (file string, before []byte, undo func() error, err error) {
	if _, err := l.ConfigSet(key, "background"); err != nil {
		return "", nil, nil, fmt.Errorf("config --set background first: %w", err)
	}
	if file, err = l.ConfigFile(); err != nil {
		return "", nil, nil, err
	}
	id := identity.Launcher()
	if before, err = id.ReadClaim(file, maxConfigFile); err != nil {
		return "", nil, nil, fmt.Errorf("reading the config file after --set background: %w", err)
	}
	dir := filepath.Dir(file)
	if undo, err = readonly.Make(dir, id.Uid, id.Gid); err != nil {
		return "", nil, nil, fmt.Errorf("cannot make %s read-only for the launcher: %w", dir, err)
	}
	if err := readonly.Check(dir, id.Uid, id.Gid); err != nil {
		return "", nil, nil, errors.Join(err, undo())
	}
	return file, before, undo, nil
}
