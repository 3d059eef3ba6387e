package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/classproof/classproof/helpers/class"
	"github.com/classproof/classproof/helpers/proc"
)

// Driver drives one launcher as its manifest says. It is safe to share between specs.
type Driver struct {
	M       *Manifest
	Meaning class.Meaning // background on this OS
	Harness string        // the fixture harness binary
	vals    map[string]string
}

// Paths are the folders a manifest's placeholders point at.
type Paths struct {
	Kit  string // {kit}: the classproof module's root
	Bin  string // {bin}: where the build step puts (or put) the launcher
	Repo string // {repo}: the launcher's source tree, e.g. a red/green worktree; may be empty
}

// New makes a driver without checking that the launcher is built (Build does that).
func New(m *Manifest, p Paths, harness string) (*Driver, error) {
	meaning, err := m.Meaning(runtime.GOOS)
	if err != nil {
		return nil, fmt.Errorf("target manifest %s: %w", m.Source, err)
	}
	vals := map[string]string{"kit": p.Kit, "bin": p.Bin}
	if p.Repo != "" {
		vals["repo"] = p.Repo
	}
	vars, err := m.ResolveVars(vals)
	if err != nil {
		return nil, fmt.Errorf("target manifest %s: %w", m.Source, err)
	}
	for k, v := range vars {
		vals[k] = v
	}
	return &Driver{M: m, Meaning: meaning, Harness: harness, vals: vals}, nil
}

// Open makes a driver for an already built launcher and checks its binaries and the harness.
func Open(m *Manifest, p Paths, harness string) (*Driver, error) {
	d, err := New(m, p, harness)
	if err != nil {
		return nil, err
	}
	if err := d.CheckBinaries(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(harness); err != nil {
		return nil, fmt.Errorf("fixture harness %q: %v", harness, err)
	}
	return d, nil
}

// Build runs the manifest's build step, if it has one, with its output going to log.
func (d *Driver) Build(ctx context.Context, log io.Writer) error {
	b := d.M.Build
	if b == nil {
		return nil
	}
	argv, err := expand(b.Run, d.vals)
	if err != nil {
		return fmt.Errorf("target manifest %s: build.run: %w", d.M.Source, err)
	}
	dir := d.vals["kit"]
	if b.Dir != "" {
		ds, err := expand([]string{b.Dir}, d.vals)
		if err != nil {
			return fmt.Errorf("target manifest %s: build.dir: %w", d.M.Source, err)
		}
		dir = ds[0]
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = d.env(b.Env, nil)
	proc.Command(cmd) // an interrupt or a timeout takes the whole build down, not only its first process
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, log)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return &BuildError{Manifest: d.M.Source, Argv: argv, Dir: dir, Output: out.String(), Err: err}
	}
	return d.CheckBinaries()
}

// BuildError is a failed build step; the red/green prover tells it apart from a failing spec.
type BuildError struct {
	Manifest string
	Argv     []string
	Dir      string
	Output   string
	Err      error
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("target manifest %s: build step %q in %s failed: %v\n%s", e.Manifest, strings.Join(e.Argv, " "), e.Dir, e.Err, e.Output)
}

// CheckBinaries makes a missing launcher binary one clear error before any spec, instead of the
// same "no such file" in every spec.
func (d *Driver) CheckBinaries() error {
	var errs []string
	fields := map[string][]string{"daemon.run": d.M.Daemon.Run, "session.direct": d.M.Session.Direct, "session.hosted": d.M.Session.Hosted,
		"spawn_spec": d.M.SpawnSpec}
	if d.M.Host != nil {
		fields["host.run"] = d.M.Host.Run
	}
	if c := d.M.Config; c != nil {
		fields["config.set"], fields["config.get"], fields["config.unset"] = c.Set, c.Get, c.Unset
	}
	if e := d.M.Explain; e != nil {
		fields["explain.run"] = e.Run
	}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	sort.Strings(names)
	// One line per binary, naming every field that runs it.
	var bins []string
	uses := map[string][]string{}
	for _, field := range names {
		argv := fields[field]
		if len(argv) == 0 {
			continue
		}
		got, err := expand(argv[:1], d.vals)
		if err != nil {
			continue // depends on a per-launch value; checked when it runs
		}
		if uses[got[0]] == nil {
			bins = append(bins, got[0])
		}
		uses[got[0]] = append(uses[got[0]], field+"[0]")
	}
	for _, bin := range bins {
		if err := executable(bin); err != nil {
			hint := ""
			if d.M.Build != nil {
				hint = " (the build step should make it: " + strings.Join(d.M.Build.Run, " ") + ")"
			}
			errs = append(errs, fmt.Sprintf("%s %q: %v%s", strings.Join(uses[bin], ", "), bin, err, hint))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("target manifest %s:\n  %s", d.M.Source, strings.Join(errs, "\n  "))
	}
	return nil
}

// TailBytes is how much of a launcher's output goes into a message: a daemon that printed 30 MB
// must not put 30 MB into every report.
const TailBytes = 64 << 10

// tailBuffer keeps the last TailBytes written to it (a launcher may print without end) and how
// much came before; safe for the writer goroutine and a reader.
type tailBuffer struct {
	mu    sync.Mutex
	b     []byte
	total int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += len(p)
	t.b = append(t.b, p...)
	if over := len(t.b) - TailBytes; over > 0 {
		t.b = append(t.b[:0:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cut := t.total - len(t.b); cut > 0 {
		return fmt.Sprintf("[%d bytes cut; the last %d follow]\n%s", cut, len(t.b), t.b)
	}
	return string(t.b)
}

// Tail is the last TailBytes of b, saying how much was cut before it.
func Tail(b []byte) string {
	if len(b) <= TailBytes {
		return string(b)
	}
	return fmt.Sprintf("[%d bytes cut; the last %d follow]\n%s", len(b)-TailBytes, TailBytes, b[len(b)-TailBytes:])
}

// executable checks that path (or a bare name on PATH) names a file that exists and may be
// executed, with the reason in the OS's words.
func executable(path string) error {
	if !strings.Contains(path, "/") {
		_, err := exec.LookPath(path)
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("not executable (mode %v)", fi.Mode())
	}
	return nil
}

// env is the kit's environment without the class variable (a CI runner that happens to set it
// must not decide what a spec proves), then extra layers, later winning.
func (d *Driver) env(layers ...map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == d.M.ClassEnv {
			continue
		}
		out = append(out, kv)
	}
	for _, l := range layers {
		for k, v := range l {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// LaunchOptions are what a spec varies per launcher instance.
type LaunchOptions struct {
	DaemonEnv map[string]string // e.g. the class env var set in the daemon's environment
}

// Launcher is one running instance of the target: its host and daemon, in a private directory.
type Launcher struct {
	d         *Driver
	Dir       string
	vals      map[string]string
	DaemonPid int
	HostPid   int
	set       *proc.Set
	timeout   time.Duration
	n         atomic.Int32
}

// Launch starts the host (if the target has one), then the daemon, and waits until both are
// ready. Every process is tracked in set; the caller kills the set and removes l.Dir.
func (d *Driver) Launch(set *proc.Set, opts LaunchOptions, log io.Writer, timeout time.Duration) (*Launcher, error) {
	dir, err := privateDir()
	if err != nil {
		return nil, err
	}
	l := &Launcher{d: d, Dir: dir, set: set, timeout: timeout}
	l.vals = map[string]string{
		"dir":         dir,
		"home":        filepath.Join(dir, "home"),
		"socket":      filepath.Join(dir, "run", "d.sock"),
		"host_socket": filepath.Join(dir, "run", "h.sock"),
	}
	for k, v := range d.vals {
		l.vals[k] = v
	}
	for _, sub := range []string{"home", "run"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			return l, err
		}
	}
	if h := d.M.Host; h != nil {
		l.HostPid, err = l.startService("agent host", "host", *h, nil, log)
		if err != nil {
			return l, err
		}
	}
	l.DaemonPid, err = l.startService("daemon", "daemon", d.M.Daemon, opts.DaemonEnv, log)
	return l, err
}

// service is a started daemon or host: its output (the tail is kept for messages) and when it
// exited.
type service struct {
	out    tailBuffer
	exited chan struct{}
	code   int
}

func (l *Launcher) startService(role, field string, s Service, extraEnv map[string]string, log io.Writer) (int, error) {
	argv, err := expand(s.Run, l.vals)
	if err != nil {
		return 0, fmt.Errorf("target manifest %s: %s.run: %w", l.d.M.Source, field, err)
	}
	env := map[string]string{}
	for k, v := range s.Env {
		vs, err := expand([]string{v}, l.vals)
		if err != nil {
			return 0, fmt.Errorf("target manifest %s: %s.env.%s: %w", l.d.M.Source, field, k, err)
		}
		env[k] = vs[0]
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = l.d.env(env, extraEnv)
	cmd.Dir = l.Dir
	// Its own process group: the kit kills the group, and a signal meant for the kit (^C) does
	// not reach the launcher before the kit has cleaned up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	svc := &service{exited: make(chan struct{})}
	cmd.Stdout = io.MultiWriter(&svc.out, log)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting %s %q: %w", role, strings.Join(argv, " "), err)
	}
	pid := cmd.Process.Pid
	l.set.TrackOwned(l.d.M.Name+" "+role, pid)
	go func() {
		_ = cmd.Wait()
		svc.code = cmd.ProcessState.ExitCode()
		close(svc.exited)
	}()
	return pid, l.waitReady(role, field, pid, svc, s.Ready)
}

// waitReady waits, within the launch timeout, until the service says it is ready the way its
// manifest declares: a socket that accepts, a path that exists, a probe that exits 0.
func (l *Launcher) waitReady(role, field string, pid int, svc *service, r Ready) error {
	var what string
	var probe func() error
	switch {
	case r.Socket != "":
		sock, err := expand([]string{r.Socket}, l.vals)
		if err != nil {
			return fmt.Errorf("target manifest %s: %s.ready.socket: %w", l.d.M.Source, field, err)
		}
		what = sock[0] + " accepted a connection"
		probe = func() error {
			c, err := net.Dial("unix", sock[0])
			if err == nil {
				c.Close()
			}
			return err
		}
	case r.Path != "":
		path, err := expand([]string{r.Path}, l.vals)
		if err != nil {
			return fmt.Errorf("target manifest %s: %s.ready.path: %w", l.d.M.Source, field, err)
		}
		what = path[0] + " existed"
		probe = func() error { _, err := os.Stat(path[0]); return err }
	case len(r.Exec) > 0:
		what = strings.Join(r.Exec, " ") + " exited 0"
		probe = func() error {
			argv, out, err := l.run(field+".ready.exec", r.Exec, nil, nil)
			if err != nil {
				return fmt.Errorf("%q: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(out))
			}
			return nil
		}
	default:
		return nil
	}
	deadline := time.Now().Add(l.timeout)
	for {
		err := probe()
		if err == nil {
			return nil
		}
		select {
		case <-svc.exited:
			return fmt.Errorf("%s %s (pid %d) exited with code %d before %s; it said:\n%s",
				l.d.M.Name, role, pid, svc.code, what, svc.out.String())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s %s (pid %d): not ready within %v (waiting until %s): %v", l.d.M.Name, role, pid, l.timeout, what, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Mode is how a session starts its harness.
type Mode string

const (
	Direct Mode = "direct" // the daemon's own child
	Hosted Mode = "hosted" // through the agent host, from a spawn spec
)

// Report is what the fixture harness writes (fixtures/harness uses this type).
type Report struct {
	HarnessPid int `json:"harness_pid"`
	// HarnessStart and Tool.Start are the kernel's start times (helpers/proc): the kit reads the
	// pids back from this file later, and a pid whose start time has changed by then is someone
	// else's.
	HarnessStart uint64 `json:"harness_start"`
	Tools        []Tool `json:"tools"`
}

// Tool is one child the harness started.
type Tool struct {
	Pid   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// Session is one started harness.
type Session struct {
	Mode    Mode
	Profile string // the profile's name
	Output  string // what the launcher's client printed
	Report  Report
	report  string
	l       *Launcher
}

// SessionError is a session the launcher refused or failed to start.
type SessionError struct {
	Mode    Mode
	Profile string // the profile's name, which a refusal should mention
	Report  string // the report path the refused harness would have written: its argv names it
	Argv    []string
	Output  string
	Err     error
}

func (e *SessionError) Error() string {
	return fmt.Sprintf("%s session for profile %s: %q: %v; it said:\n%s", e.Mode, e.Profile, strings.Join(e.Argv, " "), e.Err, e.Output)
}

// Profile is what the kit hands a launcher's session command as {profile}: a JSON file with the
// profile's name, env and harness command. A launcher with another profile format converts it in
// a thin adapter.
type Profile struct {
	Name    string            `json:"name"`
	Env     map[string]string `json:"env"`
	Command []string          `json:"command"`
	Cwd     string            `json:"cwd"`
}

// writeProfile writes the profile file for the n-th session and returns its path and name.
func (l *Launcher) writeProfile(profileEnv map[string]string, harnessArgs ...string) (path, name, report string, err error) {
	n := l.n.Add(1)
	report = filepath.Join(l.Dir, fmt.Sprintf("report-%d.json", n))
	path = filepath.Join(l.Dir, fmt.Sprintf("profile-%d.json", n))
	p := Profile{Name: fmt.Sprintf("classproof-%d", n), Env: profileEnv, Cwd: l.Dir,
		Command: []string{l.d.Harness, "--report", report}}
	if ledger := os.Getenv(proc.LedgerEnv); ledger != "" {
		p.Command = append(p.Command, "--ledger", ledger)
	}
	p.Command = append(p.Command, harnessArgs...)
	if p.Env == nil {
		p.Env = map[string]string{}
	}
	b, _ := json.MarshalIndent(p, "", "  ")
	return path, p.Name, report, os.WriteFile(path, b, 0o600)
}

// run runs one of the target's client commands with extra placeholder values and env.
func (l *Launcher) run(field string, tmpl []string, extra map[string]string, env map[string]string) (argv []string, out string, err error) {
	vals := map[string]string{}
	for k, v := range l.vals {
		vals[k] = v
	}
	for k, v := range extra {
		vals[k] = v
	}
	argv, err = expand(tmpl, vals)
	if err != nil {
		return nil, "", fmt.Errorf("target manifest %s: %s: %w", l.d.M.Source, field, err)
	}
	expEnv := map[string]string{}
	for k, v := range env {
		vs, err := expand([]string{v}, vals)
		if err != nil {
			return argv, "", fmt.Errorf("target manifest %s: %s env %s: %w", l.d.M.Source, field, k, err)
		}
		expEnv[k] = vs[0]
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = l.d.env(expEnv)
	cmd.Dir = l.Dir
	proc.Command(cmd)
	var said bytes.Buffer
	cmd.Stdout, cmd.Stderr = &said, &said
	if err := cmd.Start(); err != nil {
		return argv, "", err
	}
	// Tracked while it runs: a cleanup (an interrupt mid-command) kills its group too.
	l.set.TrackOwned(l.d.M.Name+" "+field, cmd.Process.Pid)
	err = cmd.Wait()
	// What it forked and left running (a session command's `sleep &`) is the spec's to kill.
	l.set.TrackGroup(l.d.M.Name+" "+field+" (left running)", cmd.Process.Pid)
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it exited; something it forked held its output open
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("no answer within %v (killed, with its process group): %w", l.timeout, err)
	}
	return argv, Tail(said.Bytes()), err
}

// StartSession asks the launcher for a session with the given profile env and waits for the
// harness's report. A refusal comes back as *SessionError.
func (l *Launcher) StartSession(mode Mode, profileEnv map[string]string) (*Session, error) {
	return l.StartSessionWith(mode, profileEnv)
}

// StartSessionWith is StartSession with extra harness flags, e.g. --tool and --tool-args to make
// the harness's tool a CPU load for the bench.
func (l *Launcher) StartSessionWith(mode Mode, profileEnv map[string]string, harnessArgs ...string) (*Session, error) {
	profile, name, report, err := l.writeProfile(profileEnv, harnessArgs...)
	if err != nil {
		return nil, err
	}
	tmpl := l.d.M.Session.Direct
	if mode == Hosted {
		tmpl = l.d.M.Session.Hosted
	}
	argv, out, err := l.run("session."+string(mode), tmpl, map[string]string{"profile": profile}, nil)
	if err != nil {
		return nil, &SessionError{Mode: mode, Profile: name, Report: report, Argv: argv, Output: out, Err: err}
	}
	s := &Session{Mode: mode, Profile: name, Output: out, report: report, l: l}
	if err := s.waitReport(func(r Report) bool { return len(r.Tools) > 0 }); err != nil {
		return nil, err
	}
	s.track()
	return s, nil
}

// track records the reported pids with the start times the harness reported: the report is a
// file read back later, and a pid whose process has changed since is not ours to kill.
func (s *Session) track() {
	s.l.set.TrackStarted(s.Harness().Role, s.Report.HarnessPid, s.Report.HarnessStart)
	for i, t := range s.Tools() {
		s.l.set.TrackStarted(t.Role, t.Pid, s.Report.Tools[i].Start)
	}
}

func (s *Session) waitReport(done func(Report) bool) error {
	start := time.Now()
	deadline, starvedStop := start.Add(s.l.timeout), start.Add(proc.StarvedFactor*s.l.timeout)
	for {
		b, err := os.ReadFile(s.report)
		if err == nil {
			var r Report
			if err := json.Unmarshal(b, &r); err != nil {
				return fmt.Errorf("%s harness report %s: %w", s.Mode, s.report, err)
			}
			if done(r) {
				s.Report = r
				return nil
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if now := time.Now(); now.After(deadline) {
			// A harness (or its class step) that is runnable but gets no CPU is background class
			// under a foreground load: the promise kept, not a hang. Wait longer for it, within
			// a bound; a blocked or missing one fails at the timeout.
			starved := proc.Starved(proc.Started(s.report, s.l.Roots()...)...)
			if !starved || now.After(starvedStop) {
				why := "is the harness running?"
				if starved {
					why = fmt.Sprintf("its processes were runnable but starved of CPU for %v", now.Sub(start).Round(time.Second))
				}
				return fmt.Errorf("%s session: no harness report at %s within %v (%s the launcher said: %q)", s.Mode, s.report, s.l.timeout, why, strings.TrimSpace(s.Output))
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Roots are the launcher's own processes, below which its sessions run.
func (l *Launcher) Roots() []int {
	if l.HostPid != 0 {
		return []int{l.DaemonPid, l.HostPid}
	}
	return []int{l.DaemonPid}
}

// Harness is the harness process, for the oracle.
func (s *Session) Harness() class.Subject {
	return class.Subject{Role: string(s.Mode) + " harness", Pid: s.Report.HarnessPid}
}

// Tools are the tool processes the harness reported, for the oracle.
func (s *Session) Tools() []class.Subject {
	var out []class.Subject
	for i, t := range s.Report.Tools {
		out = append(out, class.Subject{Role: fmt.Sprintf("%s tool sleep #%d", s.Mode, i+1), Pid: t.Pid})
	}
	return out
}

// Subjects are the harness and its tools.
func (s *Session) Subjects() []class.Subject {
	return append([]class.Subject{s.Harness()}, s.Tools()...)
}

// StartLateTool makes the running harness start one more tool now (SIGUSR1) and returns it.
func (s *Session) StartLateTool() (class.Subject, error) {
	before := len(s.Report.Tools)
	if err := syscall.Kill(s.Report.HarnessPid, syscall.SIGUSR1); err != nil {
		return class.Subject{}, fmt.Errorf("signalling %s harness pid %d: %w", s.Mode, s.Report.HarnessPid, err)
	}
	if err := s.waitReport(func(r Report) bool { return len(r.Tools) > before }); err != nil {
		return class.Subject{}, err
	}
	t := s.Tools()[before]
	s.l.set.TrackStarted(t.Role, t.Pid, s.Report.Tools[before].Start)
	return t, nil
}

// LauncherPid returns the pid a session's harness must descend from: the daemon for a direct
// session, the agent host for a hosted one (the daemon again for a target with no separate host).
func (s *Session) LauncherPid() (string, int) {
	if s.Mode == Hosted && s.l.HostPid != 0 {
		return "agent host", s.l.HostPid
	}
	return "daemon", s.l.DaemonPid
}

// privateDir is short (unix socket paths are limited to about 104 bytes) and 0700.
func privateDir() (string, error) {
	base := os.TempDir()
	if len(base) > 40 {
		base = "/tmp" // macOS's per-user TMPDIR is long enough to overflow sun_path
	}
	dir, err := os.MkdirTemp(base, "cp")
	if err != nil {
		return "", err
	}
	return dir, os.Chmod(dir, 0o700)
}
