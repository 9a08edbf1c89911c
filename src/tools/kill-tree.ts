/** Kill a detached child's whole process group; ESRCH means it is already gone. */
export function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* group already gone */
  }
}
