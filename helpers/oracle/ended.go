package oracle

import "strings"

// psEnded says why a process whose macOS ps stat column is stat (adv_cmds ps/print.c state: the
// state letter, then flag letters) proves nothing of its class: a zombie (Z), or a process on its
// way out (E: P_WEXIT, which ps shows for no zombie). XNU sets TASK_POLICY_TERMINATED as exit
// begins, which clears darwinbg and raises the task (osfmk/kern/task_policy.c), so a darwinbg
// process being killed reads raised. "" for a process that runs.
func psEnded(stat string) string {
	switch {
	case strings.HasPrefix(stat, "Z"):
		return "a zombie (exited, not yet reaped): its class proves nothing"
	case len(stat) > 1 && strings.Contains(stat[1:], "E"):
		return "on its way out (ps stat " + stat + ": E, P_WEXIT): exit clears darwinbg, so its class proves nothing"
	}
	return ""
}
