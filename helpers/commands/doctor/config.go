package doctor

import (
	"fmt"

	"github.com/classproof/classproof/helpers/launcher"
)

func examineConfig(r *Report, m *launcher.Manifest, l *launcher.Instance) {
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
}
