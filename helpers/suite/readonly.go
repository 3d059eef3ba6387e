package suite

import (
	"github.com/classproof/classproof/helpers/base/identity"
	"github.com/classproof/classproof/helpers/base/readonly"
)

// ReadOnlyForLauncher makes dir read-only for the user launcher processes run as (a root kit's
// launcher is another user, for whom a mode stops writes) and returns how to undo it; an error
// says why it cannot be done here.
func ReadOnlyForLauncher(dir string) (undo func() error, err error) {
	id := identity.Launcher()
	return readonly.Make(dir, id.Uid, id.Gid)
}

// LauncherCannotWrite is nil when launcher processes cannot create a file in dir, tried as their
// user.
func LauncherCannotWrite(dir string) error {
	id := identity.Launcher()
	return readonly.Check(dir, id.Uid, id.Gid)
}
