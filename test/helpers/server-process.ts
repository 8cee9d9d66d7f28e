import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  /** Every log line so far (stdout and stderr). */
  output: string[];
  /** Resolves with the URL from the "listening" log line; rejects if the process exits first. */
  listening: Promise<string>;
  exited: Promise<number | null>;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

const scripts = (
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/**
 * Runs the command of an npm script of the project, as `npm run` would, with a clean environment:
 * only PATH, HOME and what the test passes (so a DATABASE_URL of the shell does not leak in).
 * The command is exec'd so that signals and the exit code are the server's own, not npm's.
 */
export function runScript(script: 'start' | 'migrate', env: Record<string, string>): ServerProcess {
  const child = spawn('sh', ['-c', `exec ${scripts[script]}`], {
    cwd: ROOT,
    env: {
      PATH: `${path.join(ROOT, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const listening = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        output.push(line);
        const url = /Orbita is listening on (http:\/\/\S+?)"/.exec(line)?.[1];
        if (url) resolve(url);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${output.join('\n')}`)));
  });
  listening.catch(() => {});
  return {
    child,
    output,
    listening,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
