import { describe, expect, expectTypeOf, it } from 'vitest';
import { directoriesApi } from './directories';
import type { CallArgs, CallInput, CallResult } from './endpoint';
import { endpointUrl } from './endpoint';
import { type Task, tasksApi } from './tasks';

describe('the URL of a call', () => {
  it('fills the path parameters in, encoded', () => {
    expect(endpointUrl(directoriesApi.getRowTree, { params: { directoryId: 'a/b c' } })).toBe(
      '/api/directories/a%2Fb%20c/rows/tree',
    );
  });

  it('appends the query values that are given, and only those', () => {
    const url = endpointUrl(tasksApi.listTasks, { query: { limit: 20, cursor: undefined, formId: 'x&y' } });
    expect(url).toBe('/api/tasks?limit=20&formId=x%26y');
    expect(endpointUrl(tasksApi.listTasks, { query: {} })).toBe('/api/tasks');
  });

  it('refuses to build a path without one of its parameters', () => {
    expect(() => endpointUrl(tasksApi.getTask, { params: {} })).toThrow(/taskId/);
  });
});

describe('the types of a call, checked by the compiler', () => {
  it('answers with the success response of the contract, or nothing', () => {
    expectTypeOf<CallResult<typeof tasksApi.getTask>>().toEqualTypeOf<Task>();
    expectTypeOf<CallResult<typeof tasksApi.createTask>>().toEqualTypeOf<Task>();
    expectTypeOf<CallResult<typeof tasksApi.deleteTask>>().toEqualTypeOf<undefined>();
  });

  it('takes the path parameters, query and body the contract declares', () => {
    expectTypeOf<CallInput<typeof tasksApi.getTask>['params']>().toEqualTypeOf<{ taskId: string }>();
    expectTypeOf<CallArgs<typeof tasksApi.listTasks>>().toEqualTypeOf<[input?: CallInput<typeof tasksApi.listTasks>]>();
    const ok: CallInput<typeof tasksApi.createTask> = { body: { formId: 'f', title: 'A task' } };
    expect(ok.body.title).toBe('A task');
  });

  it('refuses a wrong body, a missing or wrong parameter and a wrong query value', () => {
    // @ts-expect-error `titel` is not a field of the body, and `title` is missing.
    const misspelt: CallInput<typeof tasksApi.createTask> = { body: { formId: 'f', titel: 'A task' } };
    // @ts-expect-error the path parameter is `taskId`.
    const wrongParam: CallInput<typeof tasksApi.getTask> = { params: { id: 't' } };
    // @ts-expect-error getting a task needs its id.
    const noParam: CallArgs<typeof tasksApi.getTask> = [];
    // @ts-expect-error `limit` is a number (the server coerces it from the query text).
    const wrongQuery: CallInput<typeof tasksApi.listTasks> = { query: { limit: 'many' } };
    // @ts-expect-error a reason the inbox does not know.
    const wrongReason: CallInput<typeof tasksApi.getInbox> = { query: { reason: 'someday' } };
    expect([misspelt, wrongParam, noParam, wrongQuery, wrongReason]).toHaveLength(5);
  });
});
