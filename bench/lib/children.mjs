// Child processes of the benchmark: forked with an IPC channel (children exit when it closes, so none
// outlive the benchmark even if it is killed), stdout read line by line, and all of them killed on exit.

import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

/** A forked child: its process, recent output lines, line waiters and an IPC request helper. */
export class Child {
  constructor(name, proc) {
    this.name = name;
    this.proc = proc;
    this.lines = [];
    this.stderr = [];
    this.exited = false;
    this.exitCode = undefined;
    this.#watchers = new Set();
    this.#messageWatchers = new Set();
    this.#pending = new Map();
    this.#nextId = 1;
    createInterface({ input: proc.stdout }).on('line', (line) => this.#line(line));
    createInterface({ input: proc.stderr }).on('line', (line) => {
      this.stderr.push(line);
      if (this.stderr.length > 50) this.stderr.shift();
    });
    proc.on('message', (m) => {
      const p = m && typeof m === 'object' && 'id' in m ? this.#pending.get(m.id) : undefined;
      if (!p) {
        for (const w of this.#messageWatchers) {
          if (!w.test(m)) continue;
          this.#messageWatchers.delete(w);
          clearTimeout(w.timer);
          w.resolve(m);
        }
        return;
      }
      this.#pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.error) p.reject(new Error(`${this.name}: ${m.error}`));
      else p.resolve(m.result);
    });
    this.done = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        this.exited = true;
        this.exitCode = code ?? signal;
        const why = new Error(
          `${this.name} exited (${code ?? signal})${this.stderr.length ? `: ${this.stderr.at(-1)}` : ''}`,
        );
        for (const w of [...this.#watchers, ...this.#messageWatchers]) {
          clearTimeout(w.timer);
          w.reject(why);
        }
        this.#watchers.clear();
        this.#messageWatchers.clear();
        for (const p of this.#pending.values()) {
          clearTimeout(p.timer);
          p.reject(why);
        }
        this.#pending.clear();
        resolve();
      });
    });
  }

  #watchers;
  #messageWatchers;
  #pending;
  #nextId;

  #line(line) {
    this.lines.push(line);
    if (this.lines.length > 200) this.lines.shift();
    for (const w of this.#watchers) {
      const m = w.test(line);
      if (m) {
        this.#watchers.delete(w);
        clearTimeout(w.timer);
        w.resolve({ line, match: m, at: performance.now() });
      }
    }
  }

  /** Resolves with the first line (from now on) that `test` accepts (returns truthy for); rejects on timeout or exit. */
  waitForLine(test, timeoutMs, what = 'line') {
    if (this.exited) return Promise.reject(new Error(`${this.name} has exited`));
    return new Promise((resolve, reject) => {
      const w = { test, resolve, reject };
      w.timer = setTimeout(() => {
        this.#watchers.delete(w);
        reject(
          new Error(
            `${this.name}: no ${what} within ${Math.round(timeoutMs / 1000)} s; last output: ${this.lines.at(-1) ?? this.stderr.at(-1) ?? '(none)'}`,
          ),
        );
      }, timeoutMs);
      this.#watchers.add(w);
    });
  }

  /** Resolves with the first IPC message (not an answer to call) that `test` accepts; rejects on timeout or exit. */
  waitForMessage(test, timeoutMs, what = 'message') {
    if (this.exited) return Promise.reject(new Error(`${this.name} has exited`));
    return new Promise((resolve, reject) => {
      const w = { test, resolve, reject };
      w.timer = setTimeout(() => {
        this.#messageWatchers.delete(w);
        reject(
          new Error(
            `${this.name}: no ${what} within ${Math.round(timeoutMs / 1000)} s; last output: ${this.stderr.at(-1) ?? this.lines.at(-1) ?? '(none)'}`,
          ),
        );
      }, timeoutMs);
      this.#messageWatchers.add(w);
    });
  }

  /** Sends `{id, cmd, ...args}` over IPC and resolves with the child's `result`. */
  call(cmd, args = {}, timeoutMs = 60_000) {
    if (this.exited) return Promise.reject(new Error(`${this.name} has exited`));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${this.name}: no answer to "${cmd}" within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      this.proc.send({ id, cmd, ...args });
    });
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(graceMs = 5_000) {
    if (this.exited) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await this.done;
    clearTimeout(timer);
  }
}

const CLI_CHILD = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli-child.mjs');

/** Every child started, so that one call kills them all (also from a synchronous 'exit' handler). */
export class Children {
  #all = new Set();

  /**
   * Starts the simulated leader (`simulate --nodes N --seed 1` on a free loopback port, `extraArgs` after them) and
   * waits for its ready line: `{ sim, baseUrl, token, adminUrl }`. The one way every benchmark starts it.
   */
  async simulator(name, nodes, extraArgs = []) {
    const sim = this.fork(name, CLI_CHILD, [
      'simulate',
      '--nodes',
      String(nodes),
      '--seed',
      '1',
      '--web.listen-address',
      '127.0.0.1:0',
      ...extraArgs,
    ]);
    const ready = await sim.waitForLine((l) => /listening on (\S+) token=(\S+) admin=(\S+)/.exec(l), 180_000, 'ready');
    const [, baseUrl, token, adminUrl] = ready.match;
    return { sim, baseUrl, token, adminUrl };
  }

  /** Forks `module` (plain node, with IPC); stdout and stderr are piped. */
  fork(name, module, args = [], { execArgv = [], env } = {}) {
    const proc = fork(module, args, { execArgv, env: env ?? {}, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const child = new Child(name, proc);
    this.#all.add(child);
    void child.done.then(() => this.#all.delete(child));
    return child;
  }

  /** Kills every live child at once (SIGKILL); safe to call from process.on('exit'). */
  killAll() {
    for (const c of this.#all) if (!c.exited) c.proc.kill('SIGKILL');
  }

  /** Stops every live child gracefully. */
  async stopAll() {
    await Promise.all([...this.#all].map((c) => c.stop()));
  }
}

/** A waitForLine test matching the JSON log line whose `msg` is `msg` (resolves to the parsed line). */
export function jsonLine(msg) {
  return (line) => {
    if (!line.startsWith('{')) return undefined;
    try {
      const j = JSON.parse(line);
      return j.msg === msg ? j : undefined;
    } catch {
      return undefined;
    }
  };
}
