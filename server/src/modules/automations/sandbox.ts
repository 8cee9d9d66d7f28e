import {
  newQuickJSWASMModule,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';

/** How an automation's run ended. */
export type RunStatus = 'succeeded' | 'failed' | 'timed_out' | 'out_of_memory';

export interface SandboxLimits {
  /** Heap of one run's QuickJS runtime. */
  memoryBytes: number;
  /** Time the code itself may compute (awaited host calls excluded). */
  cpuMs: number;
  /** Time the whole run may take, awaited host calls included. */
  wallMs: number;
  /** Log lines kept (each cut to 1,000 characters). */
  logLines: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  memoryBytes: 32 * 1024 * 1024,
  cpuMs: 1_000,
  wallMs: 10_000,
  logLines: 200,
};

/** A call the code may make on `ctx`: arguments and answer cross the boundary as JSON copies. */
export type HostCall = (...args: unknown[]) => Promise<unknown>;

export interface SandboxRun {
  status: RunStatus;
  durationMs: number;
  logs: string[];
  /** Why it failed; `line` in the automation's code when known. */
  error?: { message: string; line?: number };
}

const FILE = 'automation.js';
/** The code is the body of an async function of `ctx`; it starts on the wrapper's second line. */
const wrap = (code: string) => `(async function (ctx) {\n${code}\n})`;

/**
 * The WebAssembly heap a QuickJS module has reserved. QuickJS's own limit does not count every
 * allocation in this build (large strings pass it), so runs are bounded by the growth of the heap
 * itself; quickjs-emscripten keeps its Emscripten module private, hence this one reach inside.
 */
export function heapBytes(module: QuickJSWASMModule): number {
  const heap = (module as unknown as { module?: { HEAPU8?: Uint8Array } }).module?.HEAPU8;
  if (!heap) throw new Error('quickjs-emscripten changed: its module exposes no HEAPU8, so runs cannot be bounded');
  return heap.buffer.byteLength;
}

/** Modules not running code; each run takes one, so runs at the same time never share a heap. */
const idle: QuickJSWASMModule[] = [];
/** A module whose heap grew past this is dropped after its run, so the memory goes back. */
const KEPT_HEAP_BYTES = 64 * 1024 * 1024;

async function takeModule(): Promise<QuickJSWASMModule> {
  return idle.pop() ?? newQuickJSWASMModule();
}

function giveBack(module: QuickJSWASMModule): void {
  if (heapBytes(module) <= KEPT_HEAP_BYTES && idle.length < 4) idle.push(module);
}

interface VmError {
  name?: string;
  message?: string;
  stack?: string;
}

function lineOf(error: VmError): number | undefined {
  const match = new RegExp(`${FILE}:(\\d+)`).exec(error.stack ?? '');
  return match ? Number(match[1]) - 1 : undefined;
}

function describe(error: unknown): VmError {
  if (error && typeof error === 'object') return error as VmError;
  return { message: String(error) };
}

/** Whether the code compiles; the syntax error with its line otherwise. */
export async function compileError(code: string): Promise<{ message: string; line?: number } | undefined> {
  const module = await takeModule();
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(DEFAULT_LIMITS.memoryBytes);
  const vm = runtime.newContext();
  try {
    const result = vm.evalCode(wrap(code), FILE, { compileOnly: true });
    if (!result.error) {
      result.value.dispose();
      return undefined;
    }
    const error = describe(vm.dump(result.error));
    result.error.dispose();
    return {
      message: `${error.name ?? 'SyntaxError'}: ${error.message ?? 'the code does not compile'}`,
      line: lineOf(error),
    };
  } finally {
    vm.dispose();
    runtime.dispose();
    giveBack(module);
  }
}

/**
 * Runs automation code in a fresh QuickJS runtime: no host access beyond `ctx` — `input` copied
 * in as JSON, `ctx.log`, and `calls` as async methods whose arguments and answers are JSON copies.
 * Limits: heap, computing time (checked by the interrupt handler), wall-clock time for the run.
 */
export async function runInSandbox(
  code: string,
  input: Record<string, unknown>,
  calls: Record<string, HostCall>,
  limits: SandboxLimits = DEFAULT_LIMITS,
): Promise<SandboxRun> {
  const started = performance.now();
  const logs: string[] = [];
  const module = await takeModule();
  const heapAtStart = heapBytes(module);
  const runtime: QuickJSRuntime = module.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(512 * 1024);
  let computed = 0;
  let sliceStart: number | undefined;
  let timedOut = false;
  let outOfMemory = false;
  runtime.setInterruptHandler(() => {
    if (sliceStart === undefined) return false;
    timedOut ||= computed + (performance.now() - sliceStart) > limits.cpuMs;
    outOfMemory ||= heapBytes(module) - heapAtStart > limits.memoryBytes;
    return timedOut || outOfMemory;
  });
  const vm: QuickJSContext = runtime.newContext();
  let pending = 0;
  let settle: (() => void) | undefined;
  let ended = false;

  /** Runs VM work as a slice of computing time. */
  const slice = <T>(work: () => T): T => {
    sliceStart = performance.now();
    try {
      return work();
    } finally {
      computed += performance.now() - sliceStart;
      sliceStart = undefined;
    }
  };
  const toVm = (value: unknown): QuickJSHandle => {
    if (value === undefined) return vm.undefined;
    const json = vm.newString(JSON.stringify(value));
    const parsed = slice(() => vm.evalCode('(text) => JSON.parse(text)'));
    const parse = vm.unwrapResult(parsed);
    const result = vm.unwrapResult(vm.callFunction(parse, vm.undefined, json));
    json.dispose();
    parse.dispose();
    return result;
  };
  const toHost = (handle: QuickJSHandle): unknown => {
    const stringify = vm.unwrapResult(vm.evalCode('(value) => JSON.stringify(value === undefined ? null : value)'));
    const text = vm.unwrapResult(slice(() => vm.callFunction(stringify, vm.undefined, handle)));
    stringify.dispose();
    const json = vm.getString(text);
    text.dispose();
    return JSON.parse(json);
  };
  const finish = (status: RunStatus, error?: VmError): SandboxRun => ({
    status,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    logs,
    ...(error
      ? { error: { message: `${error.name ? `${error.name}: ` : ''}${error.message ?? ''}`, line: lineOf(error) } }
      : {}),
  });
  const failure = (error: VmError): SandboxRun => {
    const text = `${error.name ?? ''} ${error.message ?? ''}`;
    if (outOfMemory || /out of memory/i.test(text)) {
      return finish('out_of_memory', {
        name: 'MemoryError',
        message: `the code used more than ${limits.memoryBytes} bytes`,
      });
    }
    if (timedOut || /interrupted/.test(text))
      return finish('timed_out', {
        name: 'TimeoutError',
        message: `the code computed for more than ${limits.cpuMs} ms`,
      });
    if (/out of memory/i.test(text))
      return finish('out_of_memory', {
        name: 'MemoryError',
        message: `the code used more than ${limits.memoryBytes} bytes`,
      });
    return finish('failed', error);
  };

  try {
    const ctx = vm.newObject();
    const inputHandle = toVm(input);
    for (const key of Object.keys(input)) {
      const value = vm.getProp(inputHandle, key);
      vm.setProp(ctx, key, value);
      value.dispose();
    }
    inputHandle.dispose();
    const log = vm.newFunction('log', (...args) => {
      if (logs.length < limits.logLines)
        logs.push(
          args
            .map((arg) => vm.dump(arg))
            .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
            .join(' ')
            .slice(0, 1_000),
        );
      return vm.undefined;
    });
    vm.setProp(ctx, 'log', log);
    log.dispose();
    for (const [name, call] of Object.entries(calls)) {
      const method = vm.newFunction(name, (...argHandles) => {
        const args = argHandles.map(toHost);
        const deferred = vm.newPromise();
        pending += 1;
        call(...args)
          .then(
            (value) => {
              if (ended) return;
              const handle = toVm(value);
              deferred.resolve(handle);
              if (handle !== vm.undefined) handle.dispose();
            },
            (error: unknown) => {
              if (ended) return;
              const handle = vm.newError(error instanceof Error ? error.message : String(error));
              deferred.reject(handle);
              handle.dispose();
            },
          )
          .finally(() => {
            pending -= 1;
            if (!ended) deferred.dispose();
            settle?.();
          });
        return deferred.handle;
      });
      vm.setProp(ctx, name, method);
      method.dispose();
    }

    const compiled = slice(() => vm.evalCode(wrap(code), FILE));
    if (compiled.error) {
      const error = describe(vm.dump(compiled.error));
      compiled.error.dispose();
      return failure(error);
    }
    const called = slice(() => vm.callFunction(compiled.value, vm.undefined, ctx));
    compiled.value.dispose();
    ctx.dispose();
    if (called.error) {
      const error = describe(vm.dump(called.error));
      called.error.dispose();
      return failure(error);
    }
    const promise = called.value;
    const deadline = started + limits.wallMs;
    for (;;) {
      const jobs = slice(() => runtime.executePendingJobs());
      if (jobs.error) {
        const error = describe(vm.dump(jobs.error));
        jobs.error.dispose();
        promise.dispose();
        return failure(error);
      }
      const state = vm.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        if (state.value !== vm.undefined) state.value.dispose();
        promise.dispose();
        return finish('succeeded');
      }
      if (state.type === 'rejected') {
        const error = describe(vm.dump(state.error));
        state.error.dispose();
        promise.dispose();
        return failure(error);
      }
      if (timedOut) {
        promise.dispose();
        return failure({});
      }
      if (pending === 0) {
        promise.dispose();
        return finish('failed', { name: 'Error', message: 'the code waits for something that never comes' });
      }
      const left = deadline - performance.now();
      const woke = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), Math.max(0, left));
        settle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      settle = undefined;
      if (!woke) {
        promise.dispose();
        return finish('timed_out', { name: 'TimeoutError', message: `the run took more than ${limits.wallMs} ms` });
      }
    }
  } catch (error) {
    return failure(describe(error));
  } finally {
    ended = true;
    try {
      vm.dispose();
      runtime.dispose();
      giveBack(module);
    } catch {
      // A runtime stopped mid-allocation may leave what QuickJS cannot free: its module is not reused.
    }
  }
}
