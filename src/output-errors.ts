/**
 * A reader that went away (`stor ls | head -1`) is not a failure of the command: end at once
 * with 0, as `set -o pipefail` runbooks expect, instead of an unhandled EPIPE stack trace. Exiting
 * stops whatever the command was still doing; an embedded upload's temporary file is swept by the
 * next command that opens the state (its process is dead by then). Any other write error (a full
 * disk behind `> file`) ends it with exit 1 and one line saying so, where that line can still go.
 */
export function endWhenOutputFails(stream: NodeJS.WriteStream, name: 'stdout' | 'stderr'): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    if (name === 'stdout') process.stderr.write(`stor: cannot write to standard output: ${err.code ?? err.message}\n`);
    process.exit(1);
  });
}
