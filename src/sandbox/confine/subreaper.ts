// Under danger-full-access a command runs on the host, where nothing but its process group and
// (where ferret can make one) its cgroup ties what it starts to the call. A process that leaves
// the group and clears its environment (`env -i setsid sleep 1000 &`) is re-parented to init
// once its parent exits, and nothing in /proc says whose it was. So unconfined commands start
// under a small Perl wrapper (perl-base is on every Debian-like system) that makes itself a child
// subreaper (prctl PR_SET_CHILD_SUBREAPER, which Node cannot call): every orphan of the command
// becomes its child, and when the command ends (or is killed) it kills them all before it exits.
//
// Three processes, because the server kills a command with its process group (SIGKILL, which
// nobody can catch) and the reaper must outlive that kill:
//   W  the process the server started: the group leader, killed with the group; waits for R and
//      ends as R ends (same exit code, same signal).
//   R  the reaper: its own process group (so the group's kill misses it), a subreaper; waits for
//      C, then kills everything re-parented to it, again and again, until it has no children.
//   C  the command: moves into W's group (killed with it; the command helper makes W its leader),
//      gets the call's marker, runs bash.
// W and R carry REAPER_MARKER in their environment so the call's end can wait for R to finish.

/** Names the reaper of one call (W and R carry it; the command does not). */
export const REAPER_MARKER = 'FERRET_REAPER';

/** prctl's system call number by Node's process.arch (Linux); undefined: not known here. */
const PRCTL: Readonly<Record<string, number>> = { x64: 157, arm64: 167, riscv64: 167, loong64: 167, ia32: 172, arm: 172, ppc64: 171, s390x: 172 };

export function prctlNumber(arch: string = process.arch): number | undefined {
  return PRCTL[arch];
}

/**
 * perl and the prctl number for the reaper, or undefined (not Linux, an unknown architecture, no
 * perl on the PATH outside the workspace): then unconfined commands run as before, their cgroup
 * or marker the only tie, and the server says so at start (reaperMissing).
 */
export function reaperOf(findPerl: () => string | undefined): { perl: string; nr: number } | undefined {
  const nr = process.platform === 'linux' ? prctlNumber() : undefined;
  const perl = nr === undefined ? undefined : findPerl();
  return perl !== undefined && nr !== undefined ? { perl, nr } : undefined;
}

/** Why there is no reaper here, or undefined when there is one. */
export function reaperMissing(findPerl: () => string | undefined): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (prctlNumber() === undefined) return `no prctl number known for the ${process.arch} architecture`;
  return findPerl() === undefined ? 'perl not found' : undefined;
}

// No `use` of any module: POSIX alone costs ~20 ms at each start. On Linux: WNOHANG is 1,
// WUNTRACED 2 (perl leaves $? at 0 for a stop; ${^CHILD_ERROR_NATIVE} shows it), SIGKILL 9,
// SIGTERM 15 (on every architecture PRCTL names), PR_SET_PDEATHSIG 1, PR_SET_CHILD_SUBREAPER 36.
// The name comes from PR_SET_NAME (15; /proc/PID/comm, what ps and pgrep show), not from `$0`:
// perl writes a new `$0` over the environment block too, and the call's end finds the reapers by
// the marker in that block. Arguments: the prctl number, the call's marker name and value, then
// the command's argv.
//
// What the command may do to its reapers (it can see them: R is its parent, W is R's):
//  - kill W alone, or be killed with W's group while it left that group (`env -i setsid sleep`
//    as the whole command: bash execs it, so C itself leaves): W's death reaches R as SIGTERM
//    (PR_SET_PDEATHSIG), and R kills C and everything under it, then exits.
//  - kill R: W is a subreaper too, so C and what R held come to W, which kills them all.
//  - stop R (SIGSTOP): W sees it (WUNTRACED), kills R, and again kills what comes to it.
//  - stop both: once the group's kill ends W, R's group is orphaned with a stopped member, so the
//    kernel sends it SIGHUP (R ignores it) and SIGCONT, and R goes on as above; a reaper stopped
//    again after that is ended by the server (reaper-sweep.ts). Kill both: docs/security.md.
const REAPER = String.raw`
my ($nr, $mname, $mark) = splice(@ARGV, 0, 3);
my $name = 'ferret-reaper';
syscall($nr, 15, $name, 0, 0, 0);
my $w = $$;
my $wg = getpgrp();
syscall($nr, 36, 1, 0, 0, 0);
my $r = fork;
exit 126 unless defined $r;
if ($r) {
  my $s = 9;
  while (1) {
    my $p = waitpid(-1, 2);
    last if $p == -1;
    next unless $p == $r;
    if ((${'$'}{^CHILD_ERROR_NATIVE} & 255) == 127) { print STDERR "ferret: the command stopped its reaper: it and everything it started are killed\n"; kill 9, $r; next; }
    $s = $?;
    last;
  }
  sweep();
  ends($s);
}
setpgrp(0, 0);
syscall($nr, 36, 1, 0, 0, 0) == 0 or print STDERR "ferret: no subreaper here ($!): processes that leave this command may outlive it\n";
my $status = 9;
my $c;
$SIG{TERM} = 'IGNORE';
$SIG{HUP} = 'IGNORE';
eval {
  local $SIG{TERM} = sub { die "w\n" };
  syscall($nr, 1, 15, 0, 0, 0);
  die "w\n" if getppid() != $w;
  $c = fork;
  if (defined $c && !$c) {
    $SIG{TERM} = $SIG{HUP} = 'DEFAULT';
    setpgrp(0, $wg) or exit 126;
    delete $ENV{${REAPER_MARKER}};
    $ENV{$mname} = $mark;
    exec { $ARGV[0] } @ARGV;
    exit 127;
  }
  $status = 126 << 8 unless defined $c;
  while (defined $c) { my $p = waitpid(-1, 0); last if $p == -1; if ($p == $c) { $status = $?; last; } }
};
exit 127 if defined $c && !$c;
sweep();
ends($status);

sub sweep {
  while (1) {
    my @k = kids();
    kill 9, @k if @k;
    my $p;
    1 while ($p = waitpid(-1, 1)) > 0;
    last if $p == -1;
    select(undef, undef, undef, 0.005);
  }
}

sub ends {
  my ($s) = @_;
  $SIG{TERM} = 'DEFAULT';
  if ($s & 127) { kill $s & 127, $$; exit 128 + ($s & 127); }
  exit($s >> 8);
}

sub kids {
  if (open(my $fh, '<', "/proc/$$/task/$$/children")) { local $/; my $t = <$fh> // ''; return split ' ', $t; }
  my @k;
  opendir(my $d, '/proc') or return ();
  for my $e (readdir $d) {
    next unless $e =~ /^\d+$/;
    open(my $fh, '<', "/proc/$e/stat") or next;
    my $t = <$fh> // next;
    my @f = split ' ', substr($t, rindex($t, ')') + 2);
    push @k, $e if $f[1] == $$;
  }
  return @k;
}
`;

/** The argv that runs `file args` under the reaper, with the call's marker set for the command only. */
export function underReaper(perl: string, nr: number, marker: { name: string; value: string }, file: string, args: readonly string[]): { file: string; args: string[] } {
  return { file: perl, args: ['-e', REAPER, '--', String(nr), marker.name, marker.value, file, ...args] };
}
