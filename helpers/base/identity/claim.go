package identity

import (
	"github.com/classproof/classproof/helpers/base/actas"
	"github.com/classproof/classproof/helpers/base/files"
)

// ReadClaim is files.ReadClaim done as launcher processes' user: a file a launcher process
// wrote (a config file, a harness report, a spawn spec's translation) lies below folders it may
// change, and a folder swapped for a symlink into one of root's would otherwise have a root kit
// read, and print in a failure, what the launcher itself may not read. Read so, the kernel judges
// every folder on the way by that user's rights.
func (id Identity) ReadClaim(path string, max int64) (b []byte, err error) {
	err = actas.Do(id.Uid, id.Gid, func() error {
		b, err = files.ReadClaim(path, max)
		return err
	})
	return b, err
}
