// Package faults injects a fault into a launcher's class step, whatever language the launcher is
// written in: each of its class system calls (Syscalls) made a silent success, applied wrong or
// applied late, or, as the probe, counted and left alone, by a seccomp filter with a listener in
// the suite process (Linux 5.0 and later; Check says no elsewhere). A kill matrix (classproof
// mutants --inject) so proves that the suites catch a launcher whose class step fails in a way no
// variant of the reference was written for. The filter is put on a launcher instance's Spawner
// thread (Injector, a confine.Fault) and inherited by every process it starts; what the listener
// applies it applies as the caller, in a process of the caller's ids (helpers/base/actas). Each
// suite process counts the calls it answered beside the run's injection log (InjectedCount).
package faults
