package proctable

import (
	"fmt"
	"strings"
)

// DescribeAll says what each process is doing, for a message ("none" for no process).
func DescribeAll(pids []int) string {
	if len(pids) == 0 {
		return "none"
	}
	var parts []string
	for _, pid := range pids {
		parts = append(parts, fmt.Sprintf("pid %d (%s)", pid, DescribeState(pid)))
	}
	return strings.Join(parts, ", ")
}

// DescribeState says what a process that would not die is doing, for the cleanup's message.
func DescribeState(pid int) string {
	in, err := Lookup(pid)
	switch {
	case Gone(err):
		return "gone"
	case err != nil:
		return err.Error()
	}
	return fmt.Sprintf("%s, parent %d", stateOf(pid), in.Ppid)
}

// Descendants lists the live descendants of the given processes (not the processes themselves).
// A process table that could not be read is an error: an empty list would say "none".
func Descendants(roots ...int) ([]int, error) {
	all, err := Table()
	if err != nil {
		return nil, err
	}
	return DescendantsIn(all, roots...), nil
}

// DescendantsIn is Descendants in a table already read (Table): one read for several questions.
func DescendantsIn(all map[int]Info, roots ...int) []int {
	var out []int
	Walk(all, roots, func(_ int, child Info) { out = append(out, child.Pid) })
	return out
}

// Started lists the live descendants of roots whose arguments mention marker: the processes a
// launcher started for one session (the harness, or a trampoline on its way to it, carries the
// session's report path). A launcher's own helpers (a poll loop's sleep) are not among them.
func Started(marker string, roots ...int) ([]int, error) {
	below, err := Descendants(roots...)
	var out []int
	for _, pid := range below {
		if args, err := Args(pid); err == nil && strings.Contains(strings.Join(args, "\x00"), marker) {
			out = append(out, pid)
		}
	}
	return out, err
}

// Walk visits every live descendant of roots in the table once, parents before children, by pid
// and ppid.
func Walk(all map[int]Info, roots []int, visit func(parent int, child Info)) {
	children := map[int][]Info{}
	for _, in := range all {
		if !in.Zombie {
			children[in.Ppid] = append(children[in.Ppid], in)
		}
	}
	seen := map[int]bool{}
	queue := append([]int(nil), roots...)
	for _, r := range roots {
		seen[r] = true
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if seen[c.Pid] {
				continue
			}
			seen[c.Pid] = true
			visit(pid, c)
			queue = append(queue, c.Pid)
		}
	}
}

// Alive says whether pid is a live process; a zombie is dead (it runs nothing, it only waits to
// be reaped by a parent that may not be ours). An error says the kit cannot tell (Lookup's,
// never ErrNoProcess: a process with no pid is simply not alive).
func Alive(pid int) (bool, error) {
	in, err := Lookup(pid)
	switch {
	case Gone(err):
		return false, nil
	case err != nil:
		return false, err
	}
	return !in.Zombie, nil
}

// ParentOf returns pid's parent as the kernel lists it.
func ParentOf(pid int) (int, error) {
	in, err := Lookup(pid)
	if err != nil {
		return 0, err
	}
	return in.Ppid, nil
}

// Chain returns pid and its ancestors up to init, matched by pid and ppid only: go-ps truncates
// names, so names are never used to decide anything.
func Chain(pid int) ([]int, error) { return chainBy(pid, ParentOf) }

// chainBy is Chain on what parentOf reads. It stops at init, at a process that is its own parent
// and after 256 links: a table read while processes come and go may hold a loop.
func chainBy(pid int, parentOf func(int) (int, error)) ([]int, error) {
	chain := []int{pid}
	for cur := pid; cur > 1; {
		pp, err := parentOf(cur)
		if err != nil {
			return chain, err
		}
		chain = append(chain, pp)
		if pp == cur || len(chain) > 256 {
			break
		}
		cur = pp
	}
	return chain, nil
}

// Descends says whether ancestor is pid itself or one of its ancestors.
func Descends(pid, ancestor int) (bool, []int, error) {
	chain, err := Chain(pid)
	for _, p := range chain {
		if p == ancestor {
			return true, chain, nil
		}
	}
	return false, chain, err
}
