// Runs the system `git` binary for a mirror: an argument array (never a shell), an environment of our own (no user or
// system configuration, no prompts), and a time-out or the caller's signal that kills git with every process it started.
import { spawn } from 'node:child_process';
import { KnowledgeError } from '../../errors.js';

export interface GitRun {
  readonly args: readonly string[];
  /** An empty folder for HOME: git finds no user configuration, credentials or hooks there. */
  readonly home: string;
  /** What git is doing, for messages: "fetching https://example.com/docs.git". */
  readonly task: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Called every `watchEveryMs` while git runs; an error it returns stops git and is thrown. */
  readonly watch?: () => Promise<KnowledgeError | undefined>;
}

export interface GitResult {
  readonly exitCode: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

const watchEveryMs = 50;
/** The end of git's error output is where it says what went wrong. */
const keptStderrChars = 4096;

function gitEnvironment(home: string): NodeJS.ProcessEnv {
  return {
    // The one variable taken from the service: where the git binary and its helpers are.
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    // Messages in English, so the reasons below can be recognised.
    LC_ALL: 'C',
  };
}

/**
 * Runs git to its end and answers its exit code and output. Throws a KnowledgeError when git is missing, ran past its
 * time-out or when `watch` stopped it; throws the signal's reason when the caller aborted.
 */
export function runGit(run: GitRun): Promise<GitResult> {
  run.signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    // A process group of its own, so that a kill reaches git's helpers (git-remote-https, index-pack) too.
    const child = spawn('git', run.args, { env: gitEnvironment(run.home), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout: Buffer[] = [];
    let stderr = '';
    let stopReason: unknown;
    const stop = (reason: unknown) => {
      if (stopReason !== undefined || child.pid === undefined) return;
      stopReason = reason;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group has already ended.
      }
    };
    const timer = setTimeout(
      () => stop(new KnowledgeError('fetch_failed', `${run.task} did not finish within ${run.timeoutMs} ms`, { temporary: true })),
      run.timeoutMs,
    );
    const onAbort = () => stop(run.signal?.reason);
    run.signal?.addEventListener('abort', onAbort, { once: true });
    let watching = false;
    const watcher =
      run.watch === undefined
        ? undefined
        : setInterval(() => {
            if (watching) return;
            watching = true;
            run.watch?.().then(
              (error) => {
                watching = false;
                if (error !== undefined) stop(error);
              },
              (error: unknown) => stop(error),
            );
          }, watchEveryMs);
    child.stdout.on('data', (part: Buffer) => stdout.push(part));
    child.stderr.on('data', (part: Buffer) => (stderr = (stderr + part.toString()).slice(-keptStderrChars)));
    const finish = () => {
      clearTimeout(timer);
      clearInterval(watcher);
      run.signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      finish();
      reject(
        error.code === 'ENOENT'
          ? new KnowledgeError(
              'fetch_failed',
              "git is not installed on the service's machine: install git 2.x (git sources run the system git)",
            )
          : new KnowledgeError('fetch_failed', `${run.task} could not start git (${error.code ?? error.message})`),
      );
    });
    child.once('close', (exitCode) => {
      finish();
      if (stopReason !== undefined) return reject(stopReason);
      resolve({ exitCode: exitCode ?? -1, stdout: Buffer.concat(stdout), stderr });
    });
  });
}
