import { describe, expect, it } from 'vitest';
import { compileError, runInSandbox, type SandboxLimits } from './sandbox';

const limits: SandboxLimits = { memoryBytes: 16 * 1024 * 1024, cpuMs: 300, wallMs: 2_000, logLines: 5 };
const task = { id: 'task-1', title: 'Pump', fields: { note: 'x' } };

describe('the automation sandbox', () => {
  it('runs code with the context copied in, logs kept, and host calls awaited with JSON copies', async () => {
    const received: unknown[][] = [];
    const run = await runInSandbox(
      `ctx.log('title', ctx.task.title, ctx.trigger);
       const found = await ctx.findTasks({ limit: 2 });
       await ctx.updateFields({ count: found.length, first: found[0].title });`,
      { task, trigger: { trigger: 'schedule' } },
      {
        findTasks: async (...args) => {
          received.push(args);
          return [{ title: 'A' }, { title: 'B' }];
        },
        updateFields: async (...args) => {
          received.push(args);
          return null;
        },
      },
      limits,
    );
    expect(run).toMatchObject({ status: 'succeeded', logs: ['title Pump {"trigger":"schedule"}'] });
    expect(received).toEqual([[{ limit: 2 }], [{ count: 2, first: 'A' }]]);
  });

  it('tells a syntax error with its line, before and when running', async () => {
    expect(await compileError('const a = 1;\nconst = 2;')).toMatchObject({ line: 2 });
    expect(await compileError('const a = await Promise.resolve(1);')).toBeUndefined();
    const run = await runInSandbox('ctx.log(1);\nthrow new Error("no such field");', {}, {}, limits);
    expect(run).toMatchObject({ status: 'failed', error: { message: 'Error: no such field', line: 2 }, logs: ['1'] });
  });

  it('stops an endless loop and deep recursion, and keeps the limits of each run to itself', async () => {
    expect((await runInSandbox('while (true) {}', {}, {}, limits)).status).toBe('timed_out');
    const recursion = await runInSandbox('const f = (n) => f(n + 1) + 1; f(0);', {}, {}, limits);
    expect(recursion.status).toBe('failed');
    expect(recursion.error?.message).toMatch(/call stack/i);
    expect((await runInSandbox('ctx.log("fine")', {}, {}, limits)).status).toBe('succeeded');
  });

  it('stops memory bombs of objects and of large strings (which QuickJS’s own limit misses) as out of memory', async () => {
    // Time enough that the memory runs out first, however busy the machine.
    const roomy = { ...limits, cpuMs: 20_000, wallMs: 30_000 };
    const objects = await runInSandbox('const a = []; while (true) a.push({ n: a.length });', {}, {}, roomy);
    expect(objects.status).toBe('out_of_memory');
    const strings = await runInSandbox(
      'const a = []; while (true) a.push("x".repeat(100000) + a.length);',
      {},
      {},
      roomy,
    );
    expect(strings.status).toBe('out_of_memory');
    expect((await runInSandbox('ctx.log("after")', {}, {}, limits)).logs).toEqual(['after']);
  });

  it('gives no way out to the host: no require, process, timers or host objects behind globalThis', async () => {
    const run = await runInSandbox(
      `const seen = [typeof require, typeof process, typeof setTimeout, typeof fetch,
         typeof Function('return this')().process, typeof globalThis.constructor.constructor('return this')().require];
       ctx.log(seen.join(','));`,
      {},
      {},
      limits,
    );
    expect(run).toMatchObject({
      status: 'succeeded',
      logs: ['undefined,undefined,undefined,undefined,undefined,undefined'],
    });
  });

  it('keeps prototype pollution of what a host call returns inside the run', async () => {
    const answer = { title: 'A' };
    const run = await runInSandbox(
      `const found = await ctx.findTasks({});
       found.__proto__.polluted = 'yes';
       Object.prototype.hacked = true;
       ctx.log(String(({}).polluted));`,
      {},
      { findTasks: async () => answer },
      limits,
    );
    expect(run.status).toBe('succeeded');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).hacked).toBeUndefined();
    expect(Object.getPrototypeOf(answer)).toBe(Object.prototype);
  });

  it('ends a run that waits longer than its wall-clock limit, or for something that never comes', async () => {
    const slow = await runInSandbox(
      'await ctx.wait();',
      {},
      { wait: () => new Promise((resolve) => setTimeout(resolve, 5_000)) },
      { ...limits, wallMs: 200 },
    );
    expect(slow.status).toBe('timed_out');
    const stuck = await runInSandbox('await new Promise(() => {});', {}, {}, limits);
    expect(stuck).toMatchObject({
      status: 'failed',
      error: { message: 'Error: the code waits for something that never comes' },
    });
  });

  it('reports a failed host call to the code as an error it can catch', async () => {
    const run = await runInSandbox(
      `try { await ctx.transition('nope'); } catch (error) { ctx.log('refused:', error.message); }`,
      {},
      {
        transition: async () => {
          throw new Error('The workflow does not allow this move.');
        },
      },
      limits,
    );
    expect(run).toMatchObject({ status: 'succeeded', logs: ['refused: The workflow does not allow this move.'] });
  });

  it('caps the log', async () => {
    const run = await runInSandbox('for (let i = 0; i < 50; i++) ctx.log(i);', {}, {}, limits);
    expect(run.logs).toEqual(['0', '1', '2', '3', '4']);
  });
});
