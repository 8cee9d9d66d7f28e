import { z } from 'zod';
import { endpoint } from './endpoint';

/** What starts an automation: a task's status change, or a daily Moscow time. */
export const AutomationTrigger = z.enum(['task.status_changed', 'schedule']).meta({ id: 'AutomationTrigger' });
export type AutomationTrigger = z.infer<typeof AutomationTrigger>;

/** `HH:MM`, 24 hours. */
export const MOSCOW_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

export const StatusChangeConfig = z
  .object({
    statusId: z.uuid().optional().meta({ description: 'Only transitions to this status fire the automation' }),
    formId: z.uuid().optional().meta({ description: 'Only tasks of this form fire it' }),
  })
  .strict()
  .meta({ id: 'StatusChangeConfig' });

export const ScheduleConfig = z
  .object({
    time: z.string().regex(MOSCOW_TIME, 'A time of day as HH:MM').meta({ description: 'Daily, Moscow time' }),
  })
  .strict()
  .meta({ id: 'ScheduleConfig' });

/** The longest code an automation keeps (characters). */
export const AUTOMATION_CODE_MAX = 100_000;

const Name = z.string().trim().min(1, 'Enter a name').max(200);
const Code = z.string().max(AUTOMATION_CODE_MAX);

export const CreateAutomationRequest = z
  .object({
    name: Name,
    enabled: z.boolean().default(true),
    trigger: AutomationTrigger,
    triggerConfig: z.record(z.string(), z.unknown()).default({}),
    code: Code,
  })
  .meta({ id: 'CreateAutomationRequest' });

export const UpdateAutomationRequest = z
  .object({
    name: Name.optional(),
    enabled: z.boolean().optional(),
    trigger: AutomationTrigger.optional(),
    triggerConfig: z.record(z.string(), z.unknown()).optional(),
    code: Code.optional(),
  })
  .meta({ id: 'UpdateAutomationRequest' });

export const Automation = z
  .object({
    id: z.uuid(),
    name: z.string(),
    enabled: z.boolean(),
    trigger: AutomationTrigger,
    triggerConfig: z.record(z.string(), z.unknown()),
    code: z.string(),
    last_scheduled_run_at: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Automation' });
export type Automation = z.infer<typeof Automation>;

export const AutomationList = z.object({ items: z.array(Automation) }).meta({ id: 'AutomationList' });

export const RunStatus = z.enum(['succeeded', 'failed', 'timed_out', 'out_of_memory']).meta({ id: 'RunStatus' });

export const AutomationRun = z
  .object({
    id: z.uuid(),
    automationId: z.uuid(),
    triggerData: z.record(z.string(), z.unknown()),
    taskId: z.uuid().nullable(),
    status: RunStatus,
    durationMs: z.number().nonnegative(),
    logs: z.array(z.string()),
    error: z.string().nullable(),
    errorLine: z.number().int().nullable(),
    startedAt: z.iso.datetime(),
  })
  .meta({ id: 'AutomationRun' });
export type AutomationRun = z.infer<typeof AutomationRun>;

export const AutomationRunList = z
  .object({ items: z.array(AutomationRun), nextCursor: z.string().nullable() })
  .meta({ id: 'AutomationRunList' });

export const RunListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(200).optional(),
});

export const DryRunRequest = z.object({ taskId: z.uuid() }).meta({ id: 'DryRunRequest' });

/** A write the code asked for in a dry run, which was not kept. */
export const DryRunChange = z.object({ call: z.string(), args: z.array(z.unknown()) }).meta({ id: 'DryRunChange' });

export const DryRunResult = z
  .object({
    status: RunStatus,
    durationMs: z.number().nonnegative(),
    logs: z.array(z.string()),
    error: z.string().nullable(),
    errorLine: z.number().int().nullable(),
    changes: z.array(DryRunChange),
  })
  .meta({ id: 'DryRunResult' });
export type DryRunResult = z.infer<typeof DryRunResult>;

const AutomationParams = z.object({ automationId: z.uuid() });

/** Automations of the organization (administrators). */
export const automationsApi = {
  listAutomations: endpoint({
    method: 'get',
    path: '/api/automations',
    operationId: 'listAutomations',
    summary: 'The organization’s automations, oldest first',
    tags: ['automations'],
    responses: { 200: { description: 'Automations', schema: AutomationList } },
  }),
  createAutomation: endpoint({
    method: 'post',
    path: '/api/automations',
    operationId: 'createAutomation',
    summary: 'Create an automation: code run on a task’s status change, or daily at a Moscow time',
    description:
      '`triggerConfig` is `{statusId?, formId?}` for `task.status_changed` and `{time: "HH:MM"}` for `schedule`. ' +
      'Code that does not compile, an unknown status or form, or a bad time answers 400 naming the field.',
    tags: ['automations'],
    request: { body: CreateAutomationRequest },
    responses: { 201: { description: 'The automation', schema: Automation } },
  }),
  getAutomation: endpoint({
    method: 'get',
    path: '/api/automations/:automationId',
    operationId: 'getAutomation',
    summary: 'One automation',
    tags: ['automations'],
    request: { params: AutomationParams },
    responses: { 200: { description: 'The automation', schema: Automation } },
  }),
  updateAutomation: endpoint({
    method: 'patch',
    path: '/api/automations/:automationId',
    operationId: 'updateAutomation',
    summary: 'Change an automation (a trigger changed needs its own triggerConfig)',
    tags: ['automations'],
    request: { params: AutomationParams, body: UpdateAutomationRequest },
    responses: { 200: { description: 'The automation', schema: Automation } },
  }),
  deleteAutomation: endpoint({
    method: 'delete',
    path: '/api/automations/:automationId',
    operationId: 'deleteAutomation',
    summary: 'Delete an automation and its run log',
    tags: ['automations'],
    request: { params: AutomationParams },
    responses: { 204: { description: 'Deleted' } },
  }),
  listAutomationRuns: endpoint({
    method: 'get',
    path: '/api/automations/:automationId/runs',
    operationId: 'listAutomationRuns',
    summary: 'The automation’s runs, newest first',
    tags: ['automations'],
    request: { params: AutomationParams, query: RunListQuery },
    responses: { 200: { description: 'A page of runs', schema: AutomationRunList } },
  }),
  testAutomation: endpoint({
    method: 'post',
    path: '/api/automations/:automationId/test',
    operationId: 'testAutomation',
    summary: 'Run the automation against a task without keeping anything it writes',
    tags: ['automations'],
    request: { params: AutomationParams, body: DryRunRequest },
    responses: { 200: { description: 'What the run did and would have changed', schema: DryRunResult } },
  }),
};
