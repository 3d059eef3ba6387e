package identity

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/classproof/classproof/helpers/base/actas"
	"github.com/classproof/classproof/helpers/base/files"
)

// ipcOf lists the System V IPC objects (/proc/sysvipc/{shm,msg,sem}) uid owns or made, as
// actas.RemoveIPC takes them ("shm:ID"): an owner may hand one to another uid, its creator
// still may remove it, and a segment outlives every process, as a file in /dev/shm does.
func ipcOf(uid int) []string {
	var out []string
	for _, kind := range []string{"shm", "msg", "sem"} {
		b, err := files.ReadClaim("/proc/sysvipc/"+kind, 16<<20)
		if err != nil {
			continue
		}
		lines := strings.Split(string(b), "\n")
		head := strings.Fields(lines[0])
		idCol, uidCol, cuidCol := slices.Index(head, map[string]string{"shm": "shmid", "msg": "msqid", "sem": "semid"}[kind]), slices.Index(head, "uid"), slices.Index(head, "cuid")
		if idCol < 0 || uidCol < 0 || cuidCol < 0 {
			continue
		}
		want := strconv.Itoa(uid)
		for _, line := range lines[1:] {
			f := strings.Fields(line)
			if len(f) > max(idCol, uidCol, cuidCol) && (f[uidCol] == want || f[cuidCol] == want) {
				out = append(out, kind+":"+f[idCol])
			}
		}
	}
	return out
}

// sweepIPC removes the uid's System V IPC objects as the uid, and judges by what is there after.
func sweepIPC(id Identity, s *swept) error {
	ipc := ipcOf(id.Uid)
	if len(ipc) == 0 {
		return nil
	}
	said, err := actas.Child(id.Uid, id.Gid, sweepBound(), actas.RemoveIPC, ipc...)
	if err != nil {
		return err
	}
	// What is there now is what stays, whatever the child (the uid's to stop or trace) said.
	still := ipcOf(id.Uid)
	s.left = append(s.left, named(slices.DeleteFunc(ipc, func(o string) bool { return slices.Contains(still, o) }), nil, id.Uid)...)
	for _, o := range still {
		why := o + ": still there after its removal"
		if i := slices.IndexFunc(said, func(l string) bool { return strings.HasPrefix(l, o+":") }); i >= 0 {
			why = said[i]
		}
		s.failed = append(s.failed, fmt.Sprintf("not removed, of the run's uid %d: %s", id.Uid, why))
	}
	s.keep = s.keep || len(still) > 0
	return nil
}
